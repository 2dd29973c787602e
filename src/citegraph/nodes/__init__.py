"""The evidence graph's nodes, one module each: route, decompose, retrieve (and pool), read, extract,
contradictions, reconcile, judge, write, abstain. Each node is `async def verb_noun(state, runtime)` and
returns only the keys it changes; each works with the LLM engine and with the extractive one (read is
the LLM engine's only: without a model it changes nothing)."""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Literal

from langchain_core.messages import AIMessage

from citegraph.schemas import Answer, TraceEvent


def trace(
    node: str,
    engine: str,
    started: float,
    fallback: str | None = None,
    detail: str = "",
    decided: dict[str, Any] | None = None,
) -> TraceEvent:
    """A trace entry for a node run that started at `started` (time.perf_counter()). `decided` is
    what a user stepping through the run (Studio, `stream_mode="updates"`) needs to see of it."""
    used: Literal["llm", "extractive"] = "llm" if engine == "llm" and not fallback else "extractive"
    ms = round((time.perf_counter() - started) * 1000, 2)
    return TraceEvent(node=node, engine=used, ms=ms, fallback=fallback, detail=detail, decided=decided or {})


def short(text: str, limit: int = 100) -> str:
    """Text cut for a trace: one line, at most `limit` characters."""
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


def reply(state: Mapping[str, Any], answer: Answer) -> dict[str, Any]:
    """For a chat-shaped run (`messages` in), the answer as an AI message: its rendered text (cited
    sentences, references, conflicts, or the abstention and why), the references in its metadata."""
    if not state.get("messages"):
        return {}
    meta = {
        "references": [r.model_dump() for r in answer.references],
        "abstained": answer.abstained,
        "support": answer.support,
    }
    return {"messages": [AIMessage(content=answer.render(), response_metadata=meta)]}


def with_trace(answer: Answer, events: list[TraceEvent]) -> Answer:
    """The answer with the run's trace folded in: milliseconds per node, the fallbacks taken."""
    timings: dict[str, float] = {}
    for e in events:
        timings[e.node] = round(timings.get(e.node, 0.0) + e.ms, 2)
    fallbacks = [f"{e.node}: {e.fallback}" for e in events if e.fallback]
    engines = {e.engine for e in events if e.node in ("route", "decompose", "extract", "write")}
    engine = "llm" if "llm" in engines else "extractive"
    return answer.model_copy(update={"timings_ms": timings, "fallbacks": fallbacks, "engine": engine})
