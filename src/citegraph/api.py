"""The Python entry point: `ask(question, corpus=…)` runs the evidence graph and returns its Answer."""

from __future__ import annotations

import asyncio
from dataclasses import fields
from typing import Any, cast

from langchain_core.callbacks import UsageMetadataCallbackHandler
from langchain_core.outputs import LLMResult

from citegraph.context import Context, Deployment
from citegraph.errors import InputError
from citegraph.schemas import Answer
from citegraph.state import InputState, ModeRequest


def make_context(**settings: Any) -> Context:
    """A Context from keyword settings, run settings and the operator's alike (a Python caller is the
    operator): `corpus_dir`, `chroma_url` and the `llm_*` endpoint settings go to its Deployment. An
    unknown name is an error, not silently ignored."""
    operator = {f.name for f in fields(Deployment)} | {"corpus_dir"}
    run = {f.name for f in fields(Context)} - {"deployment"}
    unknown = set(settings) - operator - run
    if unknown:
        raise InputError(f"unknown setting(s): {', '.join(sorted(unknown))}")
    deployment = Deployment.configure(**{k: v for k, v in settings.items() if k in operator})
    return Context(deployment=deployment, **{k: v for k, v in settings.items() if k in run and v is not None})


def graph_input(question: str, mode: str | None = None, as_of: str | None = None) -> InputState:
    payload: InputState = {"question": question}
    if mode:  # route checks it (an unknown mode is an error, not "auto")
        payload["mode"] = cast(ModeRequest, mode)
    if as_of:
        payload["as_of"] = as_of
    return payload


async def aask(
    question: str, *, corpus: str | None = None, mode: str | None = None, as_of: str | None = None, **settings: Any
) -> Answer:
    """`ask` for async code: `answer = await aask("…", corpus="corpus/")`."""
    from citegraph.graph import graph

    if "corpus_dir" in settings:  # Context's name for it, which a caller may well use
        if corpus is not None:
            raise InputError("give the corpus once: corpus=… or corpus_dir=…")
        corpus = settings.pop("corpus_dir")
    ctx = make_context(corpus_dir=corpus, as_of=as_of, **settings)
    usage = ModelUse()
    out = await graph.ainvoke(graph_input(question, mode, as_of), {"callbacks": [usage]}, context=ctx)
    answer: Answer = out["answer"]
    return answer.model_copy(update={"model_use": usage.totals()}) if usage.calls else answer


class ModelUse(UsageMetadataCallbackHandler):
    """The model calls one question made that were answered, and their tokens (what a question costs
    on a priced endpoint)."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def on_llm_end(self, response: LLMResult, **kwargs: Any) -> None:
        self.calls += 1
        super().on_llm_end(response, **kwargs)

    def totals(self) -> dict[str, int]:
        used = self.usage_metadata.values()
        return {
            "calls": self.calls,
            "input_tokens": sum(u.get("input_tokens", 0) for u in used),
            "output_tokens": sum(u.get("output_tokens", 0) for u in used),
        }


def ask(
    question: str, *, corpus: str | None = None, mode: str | None = None, as_of: str | None = None, **settings: Any
) -> Answer:
    """Answer a question from a corpus folder (default: Context's, i.e. $CITEGRAPH_CORPUS or
    .citegraph/demo). `settings` are Context fields (run settings such as judge=…, as_of=…) or the
    operator's (chroma_url=…, llm_base_url=…, llm_model=…, llm_api_key=…, llm_timeout_s=…)."""
    run = aask(question, corpus=corpus, mode=mode, as_of=as_of, **settings)
    try:
        asyncio.get_running_loop()
    except RuntimeError:  # the common case: no loop in this thread
        return asyncio.run(run)
    # Inside a running loop (Jupyter, an async web handler) asyncio.run() is refused: run the question
    # in a thread of its own, with its own loop. In async code, `await aask(...)` is the better call.
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="citegraph-ask") as pool:
        return pool.submit(asyncio.run, run).result()
