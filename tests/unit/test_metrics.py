"""Evaluation metrics against values computed by hand on tiny inputs."""

import json

import pytest

from citegraph.eval.answers import Row, contains_gold, normalize, summarize, token_f1
from citegraph.eval.documents import DocQuestion, matches, score
from citegraph.eval.metrics import auc_interval, doc_ranking, latency, ranking_metrics, roc_area
from citegraph.eval.multihop import full_support_recall, pooled_docs
from citegraph.schemas import Answer, Contradiction, Fact, Reference, Sentence


def test_ranking_metrics_by_hand():
    qrels = {"q1": {"a": 1}, "q2": {"b": 1, "c": 1}, "q3": {"z": 1}}
    run = {"q1": ["a", "x"], "q2": ["x", "c", "y", "b"], "q3": []}
    m = ranking_metrics(qrels, run)
    assert m["p@1"] == pytest.approx(1 / 3, abs=1e-4)
    assert m["recall@5"] == pytest.approx((1 + 1 + 0) / 3, abs=1e-4)
    assert m["mrr@10"] == pytest.approx((1 + 1 / 2 + 0) / 3, abs=1e-4)
    import math

    ndcg_q2 = (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3))
    assert m["ndcg@10"] == pytest.approx((1 + ndcg_q2 + 0) / 3, abs=1e-4)


def test_doc_ranking_and_latency():
    assert doc_ranking(["a", "a", "b", "c", "b"], 2) == ["a", "b"]
    lat = latency([10, 20, 30, 40])
    assert lat["latency_ms_p50"] == 25.0 and lat["latency_ms_p95"] == pytest.approx(38.5)


def test_answer_metrics():
    assert normalize("The  Denver Broncos!") == "denver broncos"
    assert contains_gold("The Denver Broncos won [1].", ["Denver Broncos"])
    assert not contains_gold("Carolina won.", ["Denver Broncos"])
    # pred tokens: denver broncos won (3), gold: denver broncos (2): p = 2/3, r = 1
    assert token_f1("The Denver Broncos won [1].", ["Denver Broncos", "Broncos"]) == pytest.approx(0.8)


def test_abstention_summary():
    rows = [
        Row("a1", "", True, False, 0.9, "x", "model"),
        Row("a2", "", True, False, 0.6, "x", "model"),
        Row("a3", "", True, True, 0.3, "x", "reader"),
        Row("u1", "", False, True, 0.2, "x", "model"),
        Row("u2", "", False, False, 0.7, "x", "model"),
    ]
    s = summarize(rows)
    assert s["support_sources"] == {"model": 4, "reader": 1}
    assert s["correct_abstention_rate"] == 0.5 and s["false_abstention_rate"] == pytest.approx(1 / 3, abs=1e-4)
    # AUC: P(support of an unanswerable < support of an answerable) over the 6 pairs:
    # u1 (0.2) is below all three; u2 (0.7) is below only a1 -> 4/6
    assert s["abstention_auc"] == pytest.approx(4 / 6, abs=1e-4)
    assert s["abstention_curve"]["false_abstention"][-1] == 1.0
    low, high = s["abstention_auc_ci95"]
    assert 0.0 <= low < 4 / 6 < high <= 1.0


def test_roc_area_is_sklearns():
    import numpy as np
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(3)
    for n in (5, 40, 300):
        y = rng.integers(0, 2, n)
        y[:2] = [0, 1]
        scores = rng.integers(0, 6, n) / 5  # many ties
        assert np.isclose(roc_area(y, scores), roc_auc_score(y, scores))


def test_auc_interval():
    # A perfect ranking stays perfect in every resample; a random one straddles 0.5; the interval
    # narrows as the questions grow in number; one class alone has no area.
    assert auc_interval([0, 0, 1, 1], [0.1, 0.2, 0.8, 0.9]) == (1.0, 1.0)
    import random

    rng = random.Random(1)
    y = [i % 2 for i in range(400)]
    noise = [rng.random() for _ in y]
    low, high = auc_interval(y, noise)
    assert low < 0.5 < high
    low_small, high_small = auc_interval(y[:40], noise[:40])
    assert high_small - low_small > high - low
    assert auc_interval([1, 1, 1], [0.2, 0.5, 0.9]) is None
    assert auc_interval(y, noise) == (low, high)  # seeded
    # Paired: a ranker against itself differs by exactly 0; a perfect one beats noise by ~0.5.
    assert auc_interval(y, noise, baseline=noise) == (0.0, 0.0)
    better_low, better_high = auc_interval(y, [float(v) for v in y], baseline=noise)
    assert 0.4 < better_low <= 0.5 <= better_high < 0.6


def test_multihop_helpers():
    assert pooled_docs([["a", "b", "c"], ["d", "a", "e"]], 4) == ["a", "d", "b", "c"]
    qrels = {"q": {"a": 1, "e": 1}, "r": {"b": 1}}
    run = {"q": ["a", "b", "c", "d", "e"], "r": ["x", "b"]}
    assert full_support_recall(run, qrels, 5) == 1.0
    assert full_support_recall(run, qrels, 2) == 0.5


def test_report_shows_an_interval_as_a_range(tmp_path):
    from citegraph.eval import report

    report.write(tmp_path, "Answers", {"abstention_auc": 0.659, "abstention_auc_ci95": (0.5805, 0.7341)})
    summary = (tmp_path / "summary.md").read_text()
    assert "| abstention_auc_ci95 | 0.5805–0.7341 |" in summary
    assert json.loads((tmp_path / "results.json").read_text())["abstention_auc_ci95"] == [0.5805, 0.7341]


def _conflict_answer(quote_a: str, quote_b: str) -> Answer:

    facts = [
        Fact(id=f"f{i}", text=t, doc_id=f"d{i}", chunk_id=f"d{i}:1:0", span=(0, len(t)))
        for i, t in enumerate((quote_a, quote_b))
    ]
    c = Contradiction(id="c", facts=("f0", "f1"), kind="version", severity="major", point="p", values=("x", "y"))
    return Answer(question="q", mode="corpus", query_class="precise_fact", facts=facts, contradictions=[c])


def test_a_disagreement_counts_as_found_only_when_its_quotes_state_the_two_values():
    q = DocQuestion(
        id="f02",
        text="What is the oldest version of pluggy that pytest will accept as a dependency?",
        answerable=True,
        kind="conflict",
        answers=(">=0.12",),
        docs=("pytest-6.2.5.METADATA.txt", "pytest-8.2.2.METADATA.txt"),
        conflict={
            "docs": ["pytest-6.2.5.METADATA.txt", "pytest-8.2.2.METADATA.txt"],
            "values": ["pluggy (<2.0,>=0.12)", "pluggy <2.0,>=1.5"],
        },
    )
    files = {"d0": "pytest-6.2.5.METADATA.txt", "d1": "pytest-8.2.2.METADATA.txt"}
    real = _conflict_answer("Requires-Dist: pluggy (<2.0,>=0.12)", "Requires-Dist: pluggy <2.0,>=1.5")
    assert score(q, real, "test", 0.0, files).conflict_found is True
    # The same two files, a conflict about something else (realdocs3's grammar-fix pair was counted).
    other = _conflict_answer("A comma separate list of hosts.", "A comma separated list of hosts.")
    assert score(q, other, "test", 0.0, files).conflict_found is False
    # Another file that holds the answer (the question's docs) may take a side.
    also = DocQuestion(**{**q.__dict__, "docs": (*q.docs, "pytest-8.2.2.README.md")})
    readme = {**files, "d1": "pytest-8.2.2.README.md"}
    assert score(also, real, "test", 0.0, readme).conflict_found is True
    assert score(q, real, "test", 0.0, readme).conflict_found is False
    # One value on both sides is no disagreement.
    same = _conflict_answer("Requires-Dist: pluggy (<2.0,>=0.12)", "needs pluggy (<2.0,>=0.12) too")
    assert score(q, same, "test", 0.0, files).conflict_found is False


@pytest.mark.parametrize(
    ("text", "gold", "found"),
    [
        ("Requires-Python: >=3.7", ">=3.7", True),
        ("Requires-Dist: MarkupSafe>=2.0", ">=2.0", True),  # an operator may touch the name
        ("It needs Python 3.7.1 or later.", "3.7", False),
        ("Version 13.7 is out.", "3.7", False),
        ("Use v11.2.0 [1].", "11.2.0", True),
        ("Python 3.6+ only", "3.6+", True),
        ("the default 500 commands", "default 500", True),
        ("the default 5000 commands", "default 500", False),
        ("mypy writes to .mypy_cache by default.", ".mypy_cache", True),  # a value may start with a dot
        ("See the file command.", "3.", False),
    ],
)
def test_a_gold_value_is_found_whole(text: str, gold: str, found: bool):
    assert matches(text, gold) is found


def test_an_answer_that_leads_with_a_value_is_right_only_by_that_value():
    q = DocQuestion(id="d11", text="How deep?", answerable=True, kind="fact", answers=("3000",), docs=("x.html",))
    a = "Maximum element nesting level of parsed XML documents. The default is 256."
    b = "Adjust the maximum depth of the template stack. The default is 3000."

    def answer(*sentences: tuple[str, int]) -> Answer:
        refs = [
            Reference(n=n, doc_id="x", chunk_id=f"x:{n}", title="x", locator="", span=(0, 1), quote=t)
            for n, t in ((1, a), (2, b))
        ]
        return Answer(
            question=q.text,
            mode="corpus",
            query_class="precise_fact",
            answer=" ".join(t for t, _ in sentences),
            sentences=[Sentence(text=t, citations=[n]) for t, n in sentences],
            references=refs,
        )

    wrong_lead = answer(("256 [1].", 1), (f"{a} [1]", 1), (f"{b} [2]", 2))
    assert score(q, wrong_lead, "test", 0.0).right is False  # the gold is quoted, the lead is not it
    assert score(q, answer(("3000 [2].", 2), (f"{b} [2]", 2)), "test", 0.0).right is True
    assert score(q, answer((f"{a} [1]", 1), (f"{b} [2]", 2)), "test", 0.0).right is True  # no lead: quotes
    tls = DocQuestion(id="b03", text="TLS?", answerable=True, kind="fact", answers=("TLS 1.2",), docs=("m.rst",))
    assert score(tls, answer(("1.2+ [1].", 1), (f"{a} [1]", 1)), "test", 0.0).right is True  # the gold's number


def test_a_documents_run_counts_fallbacks_by_node_and_cause_each_nodes_time_and_the_calls():
    from citegraph.eval.documents import summarize_documents

    q = DocQuestion(id="a", text="How tall?", answerable=True, kind="fact", answers=("3,357",), docs=("v.txt",))
    base = dict(question="q", mode="corpus", query_class="precise_fact", abstained=True)
    one = Answer(**base, fallbacks=["read: APITimeoutError: timed out", "write: no model"], timings_ms={"read": 40.0})
    two = Answer(
        **base,
        fallbacks=["read: skipped"],
        timings_ms={"read": 20.0, "write": 5.0},
        model_use={"calls": 4, "input_tokens": 900, "output_tokens": 30},
    )
    rows = [score(q, one, "test", 1.0), score(q, two, "test", 2.0)]
    out = summarize_documents(rows, {})
    assert out["fallbacks_by_node"] == {"read": 2, "write": 1}
    assert out["node_ms_p50"] == {"read": 30.0, "write": 2.5}
    assert (out["model_calls_p50"], out["model_input_tokens_p50"], out["model_output_tokens_p50"]) == (2, 450, 15)
    # A cause without what is particular to the question (the deadline's seconds, the exception's text).
    assert out["fallbacks_by_cause"] == {"read: APITimeoutError": 1, "write: no model": 1, "read: skipped": 1}
    assert out["model_calls_per_question"] == {"0": 1, "4": 1}
    assert out["questions_over_3_calls"] == 1
    assert (out["latency_ms_p50"], out["latency_ms_p90"]) == (2.0, 2.0)
    assert out["quotes_found"] is None  # no citation in either answer


def test_a_fallbacks_cause_drops_what_is_particular_to_the_question():
    from citegraph.eval.documents import fallback_cause

    assert fallback_cause("read: skipped: the run's deadline (300 s) has passed") == "read: skipped: the run's deadline"
    assert fallback_cause("write: output did not match Picked: 1 validation error for Picked") == (
        "write: output did not match Picked"
    )
    assert fallback_cause("judge: the model answered neither yes nor no: 'maybe'") == (
        "judge: the model answered neither yes nor no"
    )
    assert fallback_cause("judge") == "judge"
