"""decompose: up to 5 sub-queries, each probing a distinct facet; a precise fact may need only one.

Extractive engine: the question itself, one query per entity it names when it names several (a
comparison or a bridge between two things: each needs its own evidence), its clauses when it joins
several asks, and for broad and reasoning questions the facets the Agentic Hybrid RAG paper names
(mechanism, motivation, limitations).

LLM engine: the queries the model wrote in route's call (one round trip for both); decompose asks the
model itself only when that call failed.

Whatever the engine, `sanitize` enforces in code that a sub-query never brings in a number, a title
or a name that is not in the question: such words are removed, and a sub-query left with nothing of
its own is dropped.
"""

from __future__ import annotations

import asyncio

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from citegraph.answer.subqueries import dedupe, extractive_sub_queries, requirement_names
from citegraph.context import Context
from citegraph.llm import structured_call
from citegraph.nodes import corpus_words, timed, trace
from citegraph.prompts import DECOMPOSE
from citegraph.schemas import SubQuery
from citegraph.state import State
from citegraph.text.answerability import asks_requirement


class Decomposition(BaseModel):
    sub_queries: list[str] = Field(description="Short search queries, each probing a distinct facet")


@timed
async def decompose_question(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    question, qclass = state["question"], state["query_class"]
    limit = max(1, min(ctx.max_sub_queries, 5))
    names = None
    if asks_requirement(question):
        # In a worker thread: the first call opens the corpus and reads its files' names.
        names = await asyncio.to_thread(lambda: requirement_names(question, corpus_words(ctx, []).name_words()))
    subs = extractive_sub_queries(question, qclass, limit, names)
    fallback = None
    if state.get("engine") == "llm":
        written = state.get("model_sub_queries")
        if written is None:  # route's call failed: ask for the sub-queries alone
            prompt = DECOMPOSE.format(question=question, query_class=qclass, max_sub_queries=limit)
            got, fallback = await structured_call(ctx, Decomposition, prompt, state.get("deadline"))
            written = got.sub_queries if got is not None else None
        if written is not None:
            llm_subs = [SubQuery(text=question, facet="question")]
            llm_subs += [SubQuery(text=t, facet="model") for t in written]
            checked = dedupe(llm_subs, question, limit)
            if len(checked) >= 1:
                subs = checked
    return {
        "sub_queries": subs,
        "trace": [
            trace(
                "decompose",
                state.get("engine", "extractive"),
                fallback,
                f"{len(subs)} sub-queries",
                {"sub_queries": [{"text": q.text, "facet": q.facet} for q in subs]},
            )
        ],
    }
