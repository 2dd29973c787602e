"""Routers and fan-outs as pure functions over hand-built states."""

from langgraph.types import Send

from citegraph.answer.routing import classify, pick_mode
from citegraph.nodes.contradictions import route_after_contradictions
from citegraph.nodes.judge import route_after_judge
from citegraph.nodes.retrieve import fan_out_extraction, fan_out_retrieval
from citegraph.nodes.route import route_after_route
from citegraph.schemas import Contradiction, Evidence, SubQuery


def test_route_after_route():
    assert route_after_route({"mode": "corpus"}) == "decompose"
    assert route_after_route({"mode": "recent"}) == "decompose"
    assert route_after_route({"mode": "direct", "engine": "llm"}) == "write"
    assert route_after_route({"mode": "direct", "engine": "extractive"}) == "abstain"


def _con(severity, resolved):
    return Contradiction(
        id="c", facts=("a", "b"), kind="number", severity=severity, point="p", values=("1", "2"), resolved=resolved
    )


def test_route_after_contradictions_loops_at_most_max_rounds():
    base = {"supported": ["a"], "support": 0.8, "abstain_threshold": 0.5, "max_reconcile_rounds": 2}
    open_major = {**base, "contradictions": [_con("major", False)]}
    assert route_after_contradictions({**open_major, "reconcile_rounds": 0}) == "reconcile"
    assert route_after_contradictions({**open_major, "reconcile_rounds": 1}) == "reconcile"
    assert route_after_contradictions({**open_major, "reconcile_rounds": 2}) == "judge"
    # A minor one never loops; a settled major one neither.
    assert (
        route_after_contradictions({**base, "contradictions": [_con("minor", False)], "reconcile_rounds": 0}) == "judge"
    )
    assert (
        route_after_contradictions({**base, "contradictions": [_con("critical", True)], "reconcile_rounds": 0})
        == "judge"
    )


def test_route_after_judge_abstains_without_support():
    state = {"abstain_threshold": 0.5}
    assert route_after_judge({**state, "supported": [], "support": 0.9}) == "abstain"
    assert route_after_judge({**state, "supported": ["a"], "support": 0.3}) == "abstain"
    assert route_after_judge({**state, "supported": ["a"], "support": 0.6}) == "write"


def test_fan_out_retrieval_sends_one_task_per_query():
    subs = [SubQuery(text="a b"), SubQuery(text="c d", facet="entity: C")]
    state = {
        "question": "q",
        "mode": "corpus",
        "query_class": "precise_fact",
        "sub_queries": subs,
        "reconcile_rounds": 0,
    }
    sends = fan_out_retrieval(state)
    assert all(isinstance(s, Send) and s.node == "retrieve" for s in sends)
    assert [s.arg["sub_query"].text for s in sends] == ["a b", "c d"]
    # After a reconcile round the targeted queries go out instead; none left: straight to pool.
    targeted = {**state, "reconcile_rounds": 1, "pending_queries": [SubQuery(text="x 5", round=1)]}
    assert [s.arg["sub_query"].text for s in fan_out_retrieval(targeted)] == ["x 5"]
    assert fan_out_retrieval({**state, "reconcile_rounds": 1, "pending_queries": []}) == "pool"


def test_fan_out_extraction():
    ev = Evidence(chunk_id="d:v:0", doc_id="d", text="t", span=(0, 1))
    state = {
        "question": "q",
        "query_class": "precise_fact",
        "engine": "extractive",
        "evidence": [ev],
        "selected": ["d:v:0"],
    }
    (send,) = fan_out_extraction(state)
    assert send.node == "extract" and send.arg["evidence"] is ev
    assert fan_out_extraction({**state, "selected": []}) == "contradictions"


def test_classify_and_mode():
    assert classify("Why did the plant's output fall?")[0] == "reasoning"
    assert classify("Summarize the main issues in the budget debate")[0] == "broad_synthesis"
    qclass, tags = classify("How tall is Mount Etna?")
    assert qclass == "precise_fact" and tags[0] == "mount etna"
    assert pick_mode("What is the latest figure for water use?", has_llm=False) == "recent"
    assert pick_mode("Hello", has_llm=True) == "direct"
    assert pick_mode("Hello", has_llm=False) == "corpus"


def test_newest_thing_a_document_describes_is_no_question_about_time():
    # The newest or present one of something a manual describes: recent mode would keep to the newest
    # files and leave out the manual that answers.
    for q in (
        "Why does savelog leave the most recent rotated copy (file.0) uncompressed?",
        "What does pwd print for the current working directory?",
        "Which key moves the cursor to the latest line?",
        "Our build box still has Python 2.7. Can isort run there?",
    ):
        assert pick_mode(q, has_llm=False) == "corpus", q
    for q in (
        "What is the latest release of libxslt?",
        "What is the current version of GNU tar?",
        "What has the government done recently about water?",
        "Who leads the project now?",
    ):
        assert pick_mode(q, has_llm=False) == "recent", q
