"""reconcile: for each open major or critical contradiction, targeted sub-queries built from the two
conflicting facts (the point they share, with each value), so that more sources can side with one of
them. The round counter lives in state (`reconcile_rounds`, visible in Studio); the router after
`contradictions` stops the loop at Context.max_reconcile_rounds (2)."""

from __future__ import annotations

from langgraph.runtime import Runtime

from citegraph.context import Context
from citegraph.nodes import timed, trace
from citegraph.schemas import SubQuery
from citegraph.state import State

# Targeted queries per round: two per contradiction, for the two most severe ones.
MAX_CONTRADICTIONS_PER_ROUND = 2


def targeted_queries(state: State) -> list[SubQuery]:
    rounds = state.get("reconcile_rounds", 0) + 1
    facts = {f.id: f for f in state.get("facts", [])}
    open_ = [c for c in state.get("contradictions", []) if not c.resolved and c.severity in ("major", "critical")]
    open_.sort(key=lambda c: c.severity != "critical")
    out: list[SubQuery] = []
    seen = {q.text for q in state.get("sub_queries", [])} | {q.text for q in state.get("pending_queries", [])}
    for c in open_[:MAX_CONTRADICTIONS_PER_ROUND]:
        for fid, value in zip(c.facts, c.values, strict=True):
            fact = facts.get(fid)
            point = c.point or (fact.text if fact else "")
            # Round 1 asks for the point with each value; later rounds quote each fact whole.
            if c.kind == "polarity" or rounds > 1:
                text = " ".join((fact.text if fact else point).split())
            else:
                text = f"{point} {value}".strip()
            if text and text not in seen:
                seen.add(text)
                out.append(SubQuery(text=text, facet=f"conflict: {c.kind}", round=rounds))
    return out


@timed
async def reconcile_conflicts(state: State, runtime: Runtime[Context]) -> dict:
    queries = targeted_queries(state)
    rounds = state.get("reconcile_rounds", 0) + 1
    return {
        "pending_queries": queries,
        "reconcile_rounds": rounds,
        "trace": [
            trace(
                "reconcile",
                "extractive",
                None,
                f"round {rounds}: {len(queries)} targeted queries",
                {"round": rounds, "queries": [q.text for q in queries]},
            )
        ],
    }
