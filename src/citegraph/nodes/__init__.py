"""The evidence graph's nodes, one module each: route, decompose, retrieve (and pool), read, extract,
contradictions, reconcile, judge, write, abstain. Each node is `async def verb_noun(state, runtime)` and
returns only the keys it changes; each works with the LLM engine and with the extractive one (read is
the LLM engine's only: without a model it changes nothing)."""

from __future__ import annotations

import functools
import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, Literal

from langchain_core.messages import AIMessage

from citegraph.context import Context
from citegraph.retrievers.hybrid import shared_retriever
from citegraph.schemas import Answer, Evidence, TraceEvent
from citegraph.text import answerability as ans
from citegraph.web.pages import is_web_page


def trace(
    node: str,
    engine: str,
    fallback: str | None = None,
    detail: str = "",
    decided: dict[str, Any] | None = None,
) -> TraceEvent:
    """A trace entry for a node run (`timed` stamps how long the run took). `decided` is what a user
    stepping through the run (Studio, `stream_mode="updates"`) needs to see of it."""
    used: Literal["llm", "extractive"] = "llm" if engine == "llm" and not fallback else "extractive"
    return TraceEvent(node=node, engine=used, fallback=fallback, detail=detail, decided=decided or {})


def timed(node: Callable[..., Awaitable[dict[str, Any]]]) -> Callable[..., Awaitable[dict[str, Any]]]:
    """A node that reports how long it ran: the trace events it returns get its milliseconds, and an
    answer it returns the run's timings, fallbacks and engine with them (with_trace: the node itself
    leaves that to this). LangGraph reads the node's own
    signature through `functools.wraps` (whether it takes the runtime)."""

    @functools.wraps(node)
    async def run(state: Mapping[str, Any], *args: Any, **kwargs: Any) -> dict[str, Any]:
        started = time.perf_counter()
        update = await node(state, *args, **kwargs)
        ms = round((time.perf_counter() - started) * 1000, 2)
        events = [e.model_copy(update={"ms": ms}) for e in update.get("trace", [])]
        if not events:
            return update
        update = {**update, "trace": events}
        if isinstance(update.get("answer"), Answer):
            update["answer"] = with_trace(update["answer"], [*state.get("trace", []), *events])
        return update

    return run


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


def searches_web(ctx: Context | None, mode: str) -> bool:
    """Whether a run searches the web: recent mode, the operator's provider set, pages asked for."""
    return ctx is not None and mode == "recent" and ctx.deployment.web is not None and ctx.web_pages > 0


def corpus_words(ctx: Context, evidence: list[Evidence]) -> ans.CorpusWords:
    """The words coverage is judged against ("no passage in the corpus mentions X"): the corpus's, and
    the web corpus's too when pages read from the web are in the evidence. Opens the corpora: call it
    off the event loop."""
    corpus = shared_retriever(ctx.corpus_dir, ctx.chroma_url)
    web = ctx.deployment.web
    if web is None or not any(is_web_page(e.doc_id) for e in evidence):
        return corpus
    return ans.PooledWords([corpus, shared_retriever(web.corpus_dir)])
