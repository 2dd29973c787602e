"""The rules that turn Disfl-QA's disfluent questions into the reader's training questions
(training/train_reader.py): a wrong rule would train the shipped reader on garbled questions."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2] / "training"))

from train_reader import corrected_question, restart_question


def test_restart_takes_the_new_question():
    q = "How does no where does heat rejection occur in the Rankine cycle?"
    assert restart_question(q) == "Where does heat rejection occur in the Rankine cycle?"
    # A word corrected in passing is not a restart.
    assert restart_question("What naval base fell to the Byzantine no the Normans?") is None


def test_correction_replaces_what_the_repair_repeats_or_swaps():
    assert corrected_question("What was the RAND no the US Air Force interested in?") == (
        "What was the US Air Force interested in?"
    )
    assert corrected_question("What city north of New Paltz er York was settled by Huguenots?") == (
        "What city north of New York was settled by Huguenots?"
    )
    assert corrected_question("In 1944 uh sorry 1942, what was North Fresno called?") == (
        "In 1942, what was North Fresno called?"
    )
    assert corrected_question("Why does Chico I mean Fresno only have UHF television stations?") == (
        "Why does Fresno only have UHF television stations?"
    )


def test_correction_gives_up_when_the_repair_is_unclear():
    # "elements" and "paleotopography": nothing tells how much the repair replaces.
    assert corrected_question("What does radioactive elements no paleotopography study?") is None
    # Two corrections in one question, or none at all.
    assert corrected_question("What French no British no Dutch General negotiated at Montreal?") is None
    assert corrected_question("Where does the Rhine discharge at the Dutch border?") is None
