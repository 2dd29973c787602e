"""The evidence graph's typed state: what goes in (InputState), what flows between nodes (State),
what comes out (OutputState). Fields written by parallel branches (retrieve and extract run once
per sub-query and once per passage, in parallel) have reducers that merge and dedup by id.
"""

from __future__ import annotations

import operator
from typing import Annotated, Literal, NotRequired

# pydantic (which makes the JSON schemas LangGraph Studio and the server show) needs typing_extensions'
# TypedDict on Python < 3.12.
from langchain_core.messages import AnyMessage
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict

from citegraph.schemas import Answer, Contradiction, Evidence, Fact, Mode, QueryClass, SubQuery, TraceEvent

Engine = Literal["llm", "extractive"]


def merge_evidence(old: list[Evidence], new: list[Evidence]) -> list[Evidence]:
    """Pool evidence across sub-queries: one entry per passage, keeping its best-scored retrieval; a
    passage a sub-query retrieved itself is kept over its copy read beside another release's."""
    pool = {e.chunk_id: e for e in old}
    for e in new:
        cur = pool.get(e.chunk_id)
        if cur is None or (e.release_of is None, e.scores.get("final", 0.0)) > (
            cur.release_of is None,
            cur.scores.get("final", 0.0),
        ):
            pool[e.chunk_id] = e
    return list(pool.values())


def merge_facts(old: list[Fact], new: list[Fact]) -> list[Fact]:
    """One entry per fact id (the same quote extracted twice is one fact)."""
    pool = {f.id: f for f in old}
    for f in new:
        pool.setdefault(f.id, f)
    return list(pool.values())


def merge_ids(old: list[str], new: list[str]) -> list[str]:
    return list(dict.fromkeys([*old, *new]))


ModeRequest = Literal["auto", "recent", "corpus", "direct"]


class InputState(TypedDict):
    """What a caller gives: the question (or chat `messages`, whose last human message is the
    question: LangGraph Studio's chat view and chat clients), and optionally a forced mode and a
    reference date."""

    question: NotRequired[str]
    messages: NotRequired[Annotated[list[AnyMessage], add_messages]]
    mode: NotRequired[ModeRequest]  # "auto" (or absent) until route resolves it
    as_of: NotRequired[str]


class State(InputState):
    query_class: QueryClass
    domains: list[str]
    engine: Engine
    deadline: float  # epoch seconds after which no model is called in this run (route sets it)
    model_sub_queries: list[str]  # the search queries the model wrote in route's call (decompose checks them)
    sub_queries: list[SubQuery]
    # Evidence pooled from every retrieval; `selected` are the passages facts are extracted from.
    evidence: Annotated[list[Evidence], merge_evidence]
    selected: list[str]
    # LLM engine: the numbers of each selected passage's sentences the model picked in one call
    # (nodes/read.py), by passage id; a passage missing here was not read by the model.
    picks: dict[str, list[int]]
    extracted: Annotated[list[str], merge_ids]  # passages already read by `extract`
    facts: Annotated[list[Fact], merge_facts]
    contradictions: list[Contradiction]
    support: float  # how well the facts answer the question (nodes/judge.py)
    support_source: Literal["lexical", "model", "reader", "sentences"]
    support_parts: dict[str, float]  # each judge's score that was computed
    supported: list[str]  # ids of facts that bear on the question and cover what it names
    gaps: list[str]  # why no fact could answer, when none could ("no passage mentions …")
    abstain_threshold: float
    reconcile_rounds: int
    max_reconcile_rounds: int
    pending_queries: list[SubQuery]  # the targeted queries of the current reconcile round
    warnings: Annotated[list[str], merge_ids]  # passages that address the reader (text/injection.py)
    answer: Answer
    trace: Annotated[list[TraceEvent], operator.add]


def resolved_mode(state: State) -> Mode:
    """The mode route chose (the same key holds the caller's request before route runs)."""
    mode = state.get("mode", "corpus")
    return "corpus" if mode == "auto" else mode


class OutputState(TypedDict):
    answer: Answer
    # For a chat-shaped input, the answer as an AI message too (its references in response_metadata).
    messages: NotRequired[Annotated[list[AnyMessage], add_messages]]
    # Every node's trace entry is an output too: the server streams a node's update only for output
    # keys, so without it Studio and `stream_mode="updates"` showed null for every node but write.
    trace: Annotated[list[TraceEvent], operator.add]


class RetrieveTask(TypedDict):
    """The payload of one `Send` to retrieve: a sub-query and what the retriever needs to know."""

    question: str
    mode: Mode
    query_class: QueryClass
    sub_query: SubQuery
    as_of: NotRequired[str]


class ExtractTask(TypedDict):
    """The payload of one `Send` to extract: one passage."""

    question: str
    query_class: QueryClass
    engine: Engine
    evidence: Evidence
    deadline: NotRequired[float]
    picked: NotRequired[list[int]]  # the model's picks of this passage's sentences (nodes/read.py)
