"""The graph on a small corpus of the kinds of files users have (reST dataset descriptions, two
METADATA files of one package, a PDF manual, Markdown notes), built here: a "how many" question
answered with its value first, a real disagreement reported by subject and attribute, two datasets'
counts not called a conflict, an off-topic question abstained on with its reason."""

from __future__ import annotations

from pathlib import Path

import pytest

from citegraph.api import ask
from citegraph.ingest.pipeline import ingest
from citegraph.store.corpus import Corpus
from helpers import write_pdf

FILES = {
    "wine.rst": "Wine recognition dataset\n========================\n\n"
    "The wine recognition dataset has 178 instances in three classes of cultivars.\n\n"
    "Each instance has 13 numeric attributes measured by chemical analysis.\n",
    "iris.rst": "Iris plants dataset\n===================\n\n"
    "The iris plants dataset has 150 instances in three classes of flowers.\n\n"
    "Each class refers to a type of iris plant.\n",
    "demo_pkg-1.0.METADATA.txt": "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 1.0\n"
    "Summary: A demonstration package for tests.\nAuthor: Ana Lima\nRequires-Python: >=3.6\n",
    "demo_pkg-2.0.METADATA.txt": "Metadata-Version: 2.1\nName: demo-pkg\nVersion: 2.0\n"
    "Summary: A demonstration package for tests.\nAuthor: Ana Lima\nRequires-Python: >=3.9\n",
    "plotdemo-1.0.METADATA.txt": "Metadata-Version: 2.1\nName: plotdemo\nVersion: 1.0\nSummary: Plots for tests.\n"
    "Requires-Dist: numpy (>=1.19)\nRequires-Dist: scipy (>=1.5)\n",
    "plotdemo-2.0.METADATA.txt": "Metadata-Version: 2.1\nName: plotdemo\nVersion: 2.0\nSummary: Plots for tests.\n"
    "Requires-Dist: numpy >=1.23\nRequires-Dist: scipy >=1.11\n",
    "notes.md": "# Cache notes\n\n**Note**: the archiver keeps its cache in `~/.cache/archiver` by default.\n",
}


@pytest.fixture(scope="module")
def mixed_files(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("mixed")
    for name, text in FILES.items():
        (folder / name).write_text(text)
    write_pdf(
        folder / "archiver.pdf",
        [
            "ARCHIVER(1)          User Commands          ARCHIVER(1)\n"
            "The default compression level is 6, which is biased towards high compres-\n"
            "sion at the expense of speed.",
            "ARCHIVER(1)          User Commands          ARCHIVER(1)\nThe archiver was written by Jean-loup Gailly.",
        ],
    )
    return folder


@pytest.fixture(scope="module")
def mixed(mixed_files: Path, tmp_path_factory, embedder) -> Path:
    corpus = tmp_path_factory.mktemp("corpus") / "c"
    ingest([mixed_files], corpus, embedder=embedder)
    return corpus


def test_a_how_many_question_leads_with_the_value(mixed: Path):
    a = ask("How many instances does the wine dataset have?", corpus=str(mixed))
    assert not a.abstained
    assert a.sentences[0].text == "178 [1]."
    assert "178 instances" in a.references[0].quote and a.references[0].title == "Wine recognition dataset"
    # The iris count is another dataset's: not a conflict.
    assert not any({"178", "150"} <= set(c.values) for c in a.contradictions)


def test_two_metadata_files_that_disagree_are_one_named_conflict(mixed: Path):
    a = ask("What Python version does demo-pkg require?", corpus=str(mixed))
    versions = [c for c in a.contradictions if c.kind == "version"]
    assert len(versions) == 1
    (c,) = versions
    assert set(c.values) == {">=3.6", ">=3.9"} and c.point.endswith("Requires-Python")


def test_an_off_topic_question_is_abstained_on_with_its_reason(mixed: Path):
    a = ask("What TCP port does the PostgreSQL server listen on by default?", corpus=str(mixed))
    assert a.abstained and "PostgreSQL" in a.abstain_reason
    assert "PostgreSQL" in a.answer  # the reason is in what the user reads


def test_a_thing_the_question_only_describes_is_not_answered_by_what_it_names(mixed: Path):
    # Which dataset "that dataset" is, the extractive engine does not work out; the wine dataset's own
    # count (178) would be a cited wrong answer.
    q = (
        "The wine recognition dataset's description mentions another dataset of three classes. "
        "How many instances does that dataset have?"
    )
    a = ask(q, corpus=str(mixed))
    assert a.abstained and "“that dataset”" in a.abstain_reason and "178" not in a.answer
    # Named, it is answered.
    a = ask(
        "The wine recognition dataset has three classes. How many instances does that dataset have?", corpus=str(mixed)
    )
    assert not a.abstained and a.sentences[0].text == "178 [1]."


def test_quotes_are_clean_text(mixed: Path, embedder):
    with Corpus.open(mixed, embedder.identity.as_dict()) as c:
        texts = {d["title"]: c.ledger.get_chunks(c.ledger.live_chunk_ids()) for d in c.ledger.documents()}
        everything = " ".join(r["text"] for rows in texts.values() for r in rows.values())
    assert "compression at the expense" in everything and "compres-" not in everything  # hyphenation repaired
    assert "User Commands" not in everything  # the PDF's running header is not text
    assert "**" not in everything and "`" not in everything and "=====" not in everything  # no markup
    a = ask("Where does the archiver keep its cache by default?", corpus=str(mixed))
    assert not a.abstained and "~/.cache/archiver" in a.answer


def test_a_field_of_a_record_answers_what_its_key_names(mixed: Path):
    """A METADATA line "Requires-Python: >=3.9" states what the question asks; its lexical
    relevance stands beside the reader, which learnt from prose (nodes/judge.py)."""
    for judge in ("reader", "sentences"):  # the default judge, the sentence scorer, learnt from prose too
        a = ask("What is the Requires-Python constraint of demo-pkg 2.0?", corpus=str(mixed), judge=judge)
        assert not a.abstained and a.sentences[0].text == ">=3.9 [1]."
        assert a.references[0].quote == "Requires-Python: >=3.9"
        assert a.support == max(a.support_parts["field"], a.support_parts[judge])


def test_a_requirement_asked_in_other_words_is_read_from_its_field(mixed: Path):
    """ "How new must numpy be?" is answered by the package's "Requires-Dist: numpy …" line, not scipy's;
    the two releases disagree and the answer says so. The sentence scorer reads such a line low; the
    field states the requirement exactly (nodes/judge.REQUIREMENT_FIELD_SUPPORT)."""
    a = ask("If I install plotdemo, how new must numpy be?", corpus=str(mixed))
    assert not a.abstained
    quotes = {r.quote for r in a.references}
    assert "Requires-Dist: numpy >=1.23" in quotes and "Requires-Dist: numpy (>=1.19)" in quotes
    assert not any("scipy" in q for q in quotes)
    assert "disagree" in a.answer
    assert a.support_parts["field"] >= 0.9


def test_eval_documents_scores_a_benchmark_over_these_files(mixed_files: Path, mixed: Path, tmp_path: Path):
    """`citegraph eval documents`, the command the realdocs benchmarks run: a right value, a real
    disagreement found (asked in words other than the metadata's), an off-topic question abstained on,
    a conflict label counted; `--limit` draws the sample the other evals draw."""
    import contextlib
    import io
    import json
    import random

    from citegraph.cli import main

    records = [
        {"_id": "m1", "text": "How many instances does the wine dataset have?", "answerable": True,
         "kind": "fact", "answers": ["178"], "docs": ["wine.rst"]},
        {"_id": "m2", "text": "Which Python versions does demo-pkg support?", "answerable": True,
         "kind": "conflict", "answers": [">=3.6", ">=3.9"],
         "conflict": {"docs": ["demo_pkg-1.0.METADATA.txt", "demo_pkg-2.0.METADATA.txt"],
                      "values": [">=3.6", ">=3.9"]}},
        {"_id": "m3", "text": "What TCP port does the PostgreSQL server listen on by default?",
         "answerable": False, "kind": "off-topic"},
    ]  # fmt: skip
    questions = tmp_path / "questions.jsonl"
    questions.write_text("".join(json.dumps(r) + "\n" for r in records))

    def run(*extra: str, labels: Path | None = None) -> tuple[dict, list[dict]]:
        out = tmp_path / f"report{len(extra)}"
        argv = ["eval", "documents", "--questions", str(questions), "--docs", str(mixed_files)]
        argv += ["--corpus", str(mixed), "--json", "--out", str(out), *extra]
        argv += ["--labels", str(labels)] if labels else []
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            assert main(argv) == 0
        rows = [json.loads(line) for line in (out / "answers.jsonl").read_text().splitlines()]
        return json.loads(buf.getvalue()), rows

    r, rows = run()
    assert (r["n"], r["right"], r["wrong"], r["correct_abstentions"]) == (3, 2, 0, 1)
    assert r["real_disagreements_reported"] == "1/1" and r["conflicts_unlabelled"]
    assert r["disagreements_stated"] == "1/1"  # both values in the answer's text, not only in its record
    # Every citation of the two answers quotes its document at the span it gives.
    assert sum(x["citations"] for x in rows) >= 2 and r["quotes_found"] == 1.0
    key = rows[1]["conflicts"][0]["key"]
    labels = tmp_path / "labels.jsonl"
    labels.write_text(json.dumps({"key": key, "label": "real"}) + "\n")
    r, _ = run(labels=labels)
    assert (r["conflicts_real"], r["conflicts_spurious"], r["conflicts_unlabelled"]) == (1, 0, [])
    first, rows = run("--limit", "2", "--seed", "1")
    assert first["n"] == 2 and first["sample"] == {"limit": 2, "seed": 1}
    drawn = sorted(random.Random(1).sample(range(3), 2))  # the draw of the other evals' --limit
    assert [x["qid"] for x in rows] == [records[i]["_id"] for i in drawn]


# A packaging policy that names no package, worded like the question, beside one package's METADATA
# whose requirement sits below its classifiers (realdocs2: the Debian Python policy and itsdangerous).
POLICY = (
    "# Packaging policy\n\nEvery package must declare the minimum Python version it needs, and in this "
    "distribution that minimum must be Python 3.10 or later. A package that installs modules declares a "
    "dependency on the minimum version of Python it supports; packages that still need Python 2.7 are removed.\n"
)
ITSDANGEROUS = (
    "Metadata-Version: 2.1\nName: itsdangerous\nVersion: 2.2.0\n"
    "Summary: Safely pass data to untrusted environments and back.\n"
    + "".join(f"Classifier: Programming Language :: Python :: 3.{i}\n" for i in range(8, 13))
    + "Requires-Python: >=3.8\n"
)


@pytest.fixture(scope="module")
def policy(tmp_path_factory, embedder) -> Path:
    folder = tmp_path_factory.mktemp("policy")
    (folder / "python-policy.md").write_text(POLICY)
    (folder / "itsdangerous-2.2.0.METADATA.txt").write_text(ITSDANGEROUS)
    corpus = tmp_path_factory.mktemp("corpus") / "p"
    ingest([folder], corpus, embedder=embedder)
    return corpus


def test_a_package_named_by_its_file_is_what_the_question_asks_about(policy: Path):
    """ "itsdangerous" is "its" and "dangerous" to a dictionary; a file of the corpus is named for it, so
    the policy, which never names it, cannot answer, and the requirement is found by its field."""
    a = ask("What is the minimum Python version that the itsdangerous package declares it needs?", corpus=str(policy))
    assert not a.abstained and a.sentences[0].text == ">=3.8 [1]."
    assert [r.quote for r in a.references] == ["Requires-Python: >=3.8"]
    a = ask("What Python version does itsdangerous 2.2.0 require?", corpus=str(policy))
    assert not a.abstained and a.references[0].quote == "Requires-Python: >=3.8"
