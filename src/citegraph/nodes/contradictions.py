"""contradictions: facts about the same point that disagree, with a severity, and which of them the
answer may rest on (the rules: answer/contradictions.py). The node asks the run's corpus whether a
document states the other side's line; the router sends open major and critical ones to reconcile."""

from __future__ import annotations

import asyncio
from typing import Literal

from langgraph.runtime import Runtime

from citegraph.answer.contradictions import detect, document_states
from citegraph.context import Context
from citegraph.nodes import timed, trace
from citegraph.retrievers.hybrid import shared_retriever
from citegraph.schemas import Contradiction, Evidence, Fact
from citegraph.state import State


def detect_in_corpus(
    facts: list[Fact], ctx: Context, rounds: int, max_rounds: int, evidence: list[Evidence]
) -> list[Contradiction]:
    """`detect`, asking the run's corpus whether a document states the other side's line."""
    retriever = shared_retriever(ctx.corpus_dir, ctx.chroma_url)
    return detect(facts, ctx, rounds, max_rounds, evidence, document_states(retriever.passages_of))


@timed
async def detect_contradictions(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    facts = state.get("facts", [])
    rounds, max_rounds = state.get("reconcile_rounds", 0), state.get("max_reconcile_rounds", ctx.max_reconcile_rounds)
    # In a worker thread: opening the store and reading a document's passages block (SQLite).
    found = await asyncio.to_thread(detect_in_corpus, facts, ctx, rounds, max_rounds, state.get("evidence", []))
    open_ = sum(1 for c in found if not c.resolved)
    return {
        "contradictions": found,
        "trace": [
            trace(
                "contradictions",
                "extractive",
                None,
                f"{len(found)} found, {open_} open",
                {
                    "conflicts": [
                        {"severity": c.severity, "point": c.point, "values": list(c.values), "resolved": c.resolved}
                        for c in found
                    ]
                },
            )
        ],
    }


def route_after_contradictions(state: State) -> Literal["reconcile", "judge"]:
    """Reconcile while a major or critical contradiction is open and rounds remain; then judge
    whether the facts answer the question."""
    open_ = [c for c in state.get("contradictions", []) if not c.resolved and c.severity in ("major", "critical")]
    if open_ and state.get("reconcile_rounds", 0) < state.get("max_reconcile_rounds", 2):
        return "reconcile"
    return "judge"
