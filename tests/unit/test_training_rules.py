"""The rules that turn Disfl-QA's disfluent questions into the reader's training questions, and the
leaving out of benchmark paragraphs (training/train_reader.py): a wrong rule would train the shipped
reader on garbled questions, or on the benchmark it is judged by."""

import argparse
import json

import pytest
from train_reader import corrected_question, disfl_kinds, make_pairs, overlapping, restart_question, shifts_dataset


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


PARIS = "Paris is the capital of France. It has 2.1 million inhabitants and lies on the Seine in the north."
LYON = "Lyon lies at the meeting of the Rhone and the Saone. It was founded by the Romans in 43 BC."


def test_squad_format_file_becomes_pairs_without_benchmark_copies(tmp_path):
    squad = {"version": "1.0", "data": [{"title": "France", "paragraphs": [
        {"context": PARIS, "qas": [{"id": "q1", "question": "How many people live in Paris?",
                                    "answers": [{"text": "2.1 million", "answer_start": 39}] * 2}]},
        {"context": LYON, "qas": [{"id": "q2", "question": "Who founded Lyon?",
                                   "answers": [{"text": "the Romans", "answer_start": 67}]}]},
    ]}]}  # fmt: skip
    path = tmp_path / "shifts.json"
    path.write_text(json.dumps(squad))
    ds, corpus = shifts_dataset(path)
    assert [(q.text, q.extra["answers"]) for q in ds.queries] == [
        ("How many people live in Paris?", ["2.1 million"]),
        ("Who founded Lyon?", ["the Romans"]),
    ]
    assert corpus[next(iter(ds.qrels["q2"]))]["text"] == LYON
    # Another revision of the Paris paragraph sits in a benchmark: it and every pair drawn from it go.
    revised = PARIS.replace("2.1 million", "two million") + " Its mayor is elected."
    near = overlapping([PARIS, LYON], [revised, "Something else entirely about the Loire valley."])
    assert near == {PARIS}
    rows = make_pairs(ds, corpus, {"France-0"})
    assert rows and all(r["p"] != PARIS for r in rows)
    assert {"q": "Who founded Lyon?", "p": LYON, "y": 1, "cid": "France-1"} in rows


def test_disfl_kinds_refuses_a_misspelt_kind():
    assert disfl_kinds("restart") == {"restart"}
    assert disfl_kinds("restart, correction") == {"restart", "correction"}
    with pytest.raises(argparse.ArgumentTypeError, match="restart or correction"):
        disfl_kinds("restarts,corection")


def test_a_model_written_question_is_kept_only_if_the_sentence_answers_it_in_other_words():
    from make_doc_questions import excluded_names, keep, same_program

    s = "-n, --adjustment=N add integer N to the niceness (default 10)"
    assert keep("By how much does nice raise a program's priority value if I don't say?", "default 10", s)
    assert not keep("By how much does nice raise it?", "twelve points", s)  # the answer is not the sentence's
    assert not keep("What does nice's default 10 mean?", "default 10", s)  # the question holds its answer
    assert not keep("What is the adjustment integer N added to the niceness?", "default 10", s)  # a copy
    assert not keep("What does this document say about niceness?", "default 10", s)  # about the text
    # The programs and packages of the real-documents benchmarks are never trained on.
    names = excluded_names()
    assert same_program("nice", names) and same_program("wget", names) and not same_program("ionice", names)


def test_a_manual_pair_points_at_its_sentence_in_the_text_as_loaded(tmp_path):
    """training/manual_pairs.py: the scorer trains on the claim at `start` of the loaded text, so the
    offset must be the sentence's there (markup the loader keeps or drops moves it), and a pair whose
    sentence the loader does not keep is skipped, not trained on at a wrong place."""
    from manual_pairs import convert

    (tmp_path / "docs").mkdir()
    (tmp_path / "docs/tool.md").write_text(
        "# tool\n\nSome intro text here.\n\nThe default   timeout is\n30 seconds.\n\n"
        "Use **--force** to skip the confirmation prompt entirely.\n",
        encoding="utf-8",
    )
    pairs = [
        {"id": "p1", "file": "docs/tool.md", "question": "How long does tool wait?", "answer": "30 seconds",
         "sentence": "The default timeout is 30 seconds."},
        {"id": "p2", "file": "docs/tool.md", "question": "Why?", "answer": "", "sentence": "Not in the file."},
        {"id": "p3", "file": "docs/tool.md", "question": "How do I skip the prompt?", "answer": "--force",
         "sentence": "Use **--force** to skip the confirmation prompt entirely."},
    ]  # fmt: skip
    rows, missing = convert(pairs, tmp_path, tmp_path / "texts")
    assert missing == ["p2"]
    row, marked = rows
    text = (tmp_path / "texts" / "docs__tool.md.loaded.txt").read_text(encoding="utf-8")
    assert " ".join(text[row["start"] :].split()).startswith("The default timeout is 30 seconds.")
    assert row["answer"] == "30 seconds" and row["doc"] == "docs__tool.md"
    # the loader removed the emphasis the reader copied: found by its letters, at the loaded sentence
    assert text[marked["start"] :].startswith("Use --force to skip")
