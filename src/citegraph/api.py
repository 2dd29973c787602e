"""The Python entry point: `ask(question, corpus=…)` runs the evidence graph and returns its Answer."""

from __future__ import annotations

import asyncio
from dataclasses import fields
from typing import Any, cast

from citegraph.context import Context
from citegraph.errors import InputError
from citegraph.schemas import Answer
from citegraph.state import InputState, ModeRequest


def make_context(**settings: Any) -> Context:
    """A Context from keyword settings; an unknown name is an error, not silently ignored."""
    known = {f.name for f in fields(Context)}
    unknown = set(settings) - known
    if unknown:
        raise InputError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    return Context(**{k: v for k, v in settings.items() if v is not None})


def graph_input(question: str, mode: str | None = None, as_of: str | None = None) -> InputState:
    payload: InputState = {"question": question}
    if mode in ("recent", "corpus", "direct"):
        payload["mode"] = cast(ModeRequest, mode)
    if as_of:
        payload["as_of"] = as_of
    return payload


async def aask(
    question: str, *, corpus: str | None = None, mode: str | None = None, as_of: str | None = None, **settings: Any
) -> Answer:
    from citegraph.graph import graph

    ctx = make_context(corpus_dir=corpus, as_of=as_of, **settings)
    out = await graph.ainvoke(graph_input(question, mode, as_of), context=ctx)
    return out["answer"]


def ask(
    question: str, *, corpus: str | None = None, mode: str | None = None, as_of: str | None = None, **settings: Any
) -> Answer:
    """Answer a question from a corpus folder (default: Context's, i.e. $CITEGRAPH_CORPUS or
    .citegraph/demo). `settings` are Context fields, e.g. llm_base_url=…, llm_model=…."""
    return asyncio.run(aask(question, corpus=corpus, mode=mode, as_of=as_of, **settings))
