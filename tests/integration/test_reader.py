"""The reader (src/citegraph/reader.py) with the weights shipped in the package, on the package's
MiniLM: it loads, it reads a changed question as no longer answered by the same passage, and it
refuses weights that do not fit."""

from __future__ import annotations

from pathlib import Path

import pytest

from citegraph.reader import Reader, get_reader

ETNA = (
    "Mount Etna is an active stratovolcano on the east coast of Sicily, Italy. It is the highest "
    "Italian mountain south of the Alps, standing 3,357 metres tall."
)
BEES = "A honeybee colony contains a single queen, thousands of female workers and a few hundred drones."


def test_probabilities_one_per_passage():
    reader = get_reader()
    ps = reader.probabilities("How tall is Mount Etna?", [ETNA, BEES])
    assert len(ps) == 2 and all(0.0 <= p <= 1.0 for p in ps)
    assert ps[0] > 0.5 > ps[1], "the passage that states the height, not the one about bees"
    assert reader.probabilities("How tall is Mount Etna?", []) == []
    assert get_reader() is reader  # loaded once per process


def test_a_question_longer_than_the_window_is_read_not_refused():
    # 2,000 characters (the most route lets through) are ~450 word pieces, beyond the 256 window.
    question = ("How tall is Mount Etna, the volcano on the east coast of Sicily? " * 32)[:2000]
    [p] = get_reader().probabilities(question, [ETNA])
    assert 0.0 <= p <= 1.0


@pytest.mark.parametrize(
    ("asked", "changed"),
    [
        ("How tall is Mount Etna?", "How tall is Mount Vesuvius?"),  # a name swapped
        ("Which mountain is the highest south of the Alps?", "Which mountain is the lowest south of the Alps?"),
        ("How many queens does a honeybee colony contain?", "How many kings does a honeybee colony contain?"),
    ],
)
def test_a_question_changed_to_one_the_passage_does_not_answer_scores_lower(asked: str, changed: str):
    reader = get_reader()
    passage = BEES if "honeybee" in asked else ETNA
    [p_asked] = reader.probabilities(asked, [passage])
    [p_changed] = reader.probabilities(changed, [passage])
    assert p_asked > p_changed + 0.1


def test_weights_that_do_not_fit_are_refused_by_name(tmp_path: Path):
    import torch
    from safetensors.torch import save_file

    wrong = tmp_path / "wrong.safetensors"
    save_file({"classifier.weight": torch.zeros(3, 7)}, str(wrong))
    with pytest.raises(ValueError, match="does not fit"):
        Reader(weights=wrong)
    with pytest.raises(FileNotFoundError, match="reader weights missing"):
        Reader(weights=tmp_path / "absent.safetensors")


def test_the_sentence_scorer_prefers_the_sentence_that_states_the_answer_to_the_topical_one():
    # tar's man page: the sentence that names the variable, not the ones that repeat the question's words.
    from citegraph.reader import get_sentence_scorer, sentence_text

    question = "If I run tar without -f, which environment variable does it look at to decide the archive name?"
    sentences = [
        "-f, --file=ARCHIVE Use archive file or device ARCHIVE.",
        "If this option is not given, tar will first examine the environment variable `TAPE'.",
        "The archive name may be given as a file name or as a device name.",
    ]
    ps = get_sentence_scorer().probabilities(question, [sentence_text("tar(1)", s) for s in sentences])
    assert max(range(3), key=lambda i: ps[i]) == 1, ps
    assert get_sentence_scorer() is get_sentence_scorer() and get_sentence_scorer() is not get_reader()


def test_the_support_check_passes_what_the_quote_says_and_not_what_it_does_not():
    """The shipped support check (issue 19) at the default threshold, on a quote about Etna: restatements
    pass; a changed place or a claim the quote does not make does not. (It is weaker on a word turned
    into its opposite: docs/BENCHMARKS.md.)"""
    from citegraph.context import Context
    from citegraph.reader import evidence_text, get_support_checker

    quote = (
        "Mount Etna is an active stratovolcano on the east coast of Sicily. It is the highest Italian mountain "
        "south of the Alps, standing 3,357 metres tall."
    )
    evidence = evidence_text([("Mount Etna", quote)])
    floor = Context().support_check
    check = get_support_checker()
    for said in ["Mount Etna is 3,357 metres tall.", "Mount Etna stands on the east coast of Sicily."]:
        assert check.probabilities(said, [evidence])[0] >= floor, said
    for unsaid in [
        "Mount Etna is on the west coast of Sicily.",
        "Mount Etna is an extinct volcano.",
        "Mount Etna last erupted in 2021.",
    ]:
        assert check.probabilities(unsaid, [evidence])[0] < floor, unsaid
