"""route: pick the mode (recent / corpus / direct), the query class (precise fact / broad synthesis /
reasoning) and domain tags. The class sets the retrieval budget downstream. With a model, the same call
writes the search queries decompose takes (one round trip, not two).

Extractive engine: cue words. "direct" (no retrieval) is only chosen when a model can answer; a
question forced to "direct" without a model is abstained on by the router after this node.
"""

from __future__ import annotations

from typing import Any, Literal

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from citegraph.answer.routing import classify, pick_mode
from citegraph.context import Context
from citegraph.errors import InputError
from citegraph.llm import deadline_from_now, engine_name, structured_call
from citegraph.nodes import timed, trace
from citegraph.prompts import ROUTE
from citegraph.schemas import Mode
from citegraph.state import State
from citegraph.text.dates import parse_date


class RouteDecision(BaseModel):
    mode: Literal["recent", "corpus", "direct"] = Field(description="recent, corpus or direct")
    query_class: Literal["precise_fact", "broad_synthesis", "reasoning"]
    domains: list[str] = Field(default_factory=list, description="Up to 5 topic tags from the question")
    sub_queries: list[str] = Field(
        default_factory=list, description="Short search queries, each probing a distinct facet of the question"
    )


# A question is a question, not a document: longer ones are refused before any model reads them (a
# 5 MB "question" held a server worker for minutes).
MAX_QUESTION_CHARS = 2000


MODES = ("auto", "recent", "corpus", "direct")


def last_human_text(messages: list[Any]) -> str | None:
    """The text of the last human message of a chat (its text parts, when the content is a list)."""
    for m in reversed(messages):
        if getattr(m, "type", None) == "human":
            content = m.content
            if isinstance(content, list):
                return " ".join(str(p.get("text", "")) if isinstance(p, dict) else str(p) for p in content)
            return content if isinstance(content, str) else str(content)
    return None


def check_input(state: dict, ctx: Context) -> str:
    """The question, stripped, once the run's input and dates are valid; else an InputError that
    names the field (the server passes its input through unchecked)."""
    question = state.get("question")
    if question is None and state.get("messages"):
        question = last_human_text(state["messages"])
    if question is None:
        raise InputError('the input needs a "question" (a string), or "messages" that end with a human message')
    if not isinstance(question, str):
        raise InputError(f"question must be a string, got {type(question).__name__}")
    question = question.strip()
    if not question:
        raise InputError("the question is empty")
    if len(question) > MAX_QUESTION_CHARS:
        raise InputError(f"the question is {len(question):,} characters long; the limit is {MAX_QUESTION_CHARS:,}")
    mode = state.get("mode") or "auto"
    if mode not in MODES:
        raise InputError(f"unknown mode {mode!r}: use {', '.join(MODES)}")
    for where, value in (("as_of", state.get("as_of")), ("context as_of", ctx.as_of)):
        if value not in (None, "") and (not isinstance(value, str) or parse_date(value) is None):
            raise InputError(f"{where}: {value!r} is not a date (use YYYY, YYYY-MM or YYYY-MM-DD)")
    return question


@timed
async def route_question(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    question = check_input(dict(state), ctx)
    forced = state.get("mode") or "auto"
    engine = engine_name(ctx)
    qclass, domains = classify(question)
    mode: Mode = pick_mode(question, engine == "llm")
    fallback = None
    model_queries: list[str] | None = None
    deadline = deadline_from_now(ctx)
    if engine == "llm":
        # One call routes, classifies and decomposes: decompose takes the sub-queries from here.
        prompt = ROUTE.format(question=question, max_sub_queries=max(1, min(ctx.max_sub_queries, 5)))
        decision, fallback = await structured_call(ctx, RouteDecision, prompt, deadline)
        if decision is not None:
            model_queries = decision.sub_queries
            qclass, mode = decision.query_class, decision.mode
            # Never let a model route a question away from the evidence: "direct" (an uncited answer
            # from the model's own memory) only for what the rules also see as needing no documents.
            if mode == "direct":
                mode = pick_mode(question, has_llm=True)
            domains = [d.strip().lower() for d in decision.domains if d.strip()][:5] or domains
    if forced in ("recent", "corpus", "direct"):
        mode = forced
    return {
        "question": question,  # stripped, or taken from the chat's last human message
        **({"model_sub_queries": model_queries} if model_queries is not None else {}),
        "mode": mode,
        "query_class": qclass,
        "domains": domains,
        "engine": engine,
        "deadline": deadline,
        "reconcile_rounds": 0,
        "max_reconcile_rounds": ctx.max_reconcile_rounds,
        "abstain_threshold": ctx.threshold(ctx.judge),  # the judge node sets it for the judge that ran
        "trace": [
            trace(
                "route",
                engine,
                fallback,
                f"{mode}, {qclass}",
                {"mode": mode, "query_class": qclass, "domains": domains},
            )
        ],
    }


def route_after_route(state: State) -> Literal["decompose", "write", "abstain"]:
    """direct → write (with a model) or abstain (without one); recent / corpus → decompose."""
    if state["mode"] == "direct":
        return "write" if state.get("engine") == "llm" else "abstain"
    return "decompose"
