"""route: pick the mode (recent / corpus / direct), the query class (precise fact / broad synthesis /
reasoning) and domain tags. The class sets the retrieval budget downstream. With a model, the same call
writes the search queries decompose takes (one round trip, not two).

Extractive engine: cue words. "direct" (no retrieval) is only chosen when a model can answer; a
question forced to "direct" without a model is abstained on by the router after this node.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from citegraph.context import Context
from citegraph.errors import InputError
from citegraph.llm import deadline_from_now, engine_name, structured_call
from citegraph.nodes import timed, trace
from citegraph.prompts import ROUTE
from citegraph.schemas import Mode, QueryClass
from citegraph.state import State
from citegraph.text.claims import extract_entities
from citegraph.text.dates import parse_date
from citegraph.text.tokens import QUESTION_WORDS, STOPWORDS

_RECENT = re.compile(
    r"\b(latest|current(ly)?|now|nowadays|today|recent(ly)?|this (year|month|week)|so far|as of|at present|"
    r"up to date|upcoming|newest|most recent)\b",
    re.IGNORECASE,
)
# "the most recent rotated copy", "the current directory", "the latest line": the newest or present one
# of something a document describes, not a question about what is new. Recent mode keeps to the newest
# documents, and savelog's manual was left out of "Why does savelog leave the most recent rotated copy
# uncompressed?" for a newer file about something else. ("still", as in "still has Python 2.7", is not
# about time either.)
_ADJECTIVE = frozenset(["current", "latest", "newest", "most recent", "recent"])
_NOT_TIME = re.compile(
    r"\W+(\w+\W+)?(directory|directories|dir|folder|working|user|file|files|copy|copies|backup|backups|buffer|"
    r"line|lines|process|session|locale|shell|terminal|window|page|position|entry|entries|item|selection|record|"
    r"log|snapshot|commit|branch|frame|call|thread|element|node|token|character|word|column|row|cell|one|"
    r"settings?|configuration|context|host|time ?zone|task|job|screen|cursor|key|message|command)\b",
    re.IGNORECASE,
)


def asks_recent(question: str) -> bool:
    """Whether the question asks what is new or current (recent mode), by its words."""
    for m in _RECENT.finditer(question):
        if m.group(1).lower() in _ADJECTIVE and _NOT_TIME.match(question, m.end()):
            continue
        return True
    return False


_REASONING = re.compile(
    r"^\s*(why|how (do|does|did|can|could|would|is|are|was|were|has|have)|explain|what (causes|caused|explains|"
    r"would|if)|in what way)\b|\b(because|lead to|leads to|led to|result in|results in|impact of|effect of|"
    r"effects of|cause of|causes of|reason for|reasons for|consequences?)\b",
    re.IGNORECASE,
)
_BROAD = re.compile(
    r"^\s*(describe|summari[sz]e|overview|discuss|compare|list|outline|tell me about|give an overview|"
    r"what (are|were) (the|some) (main|key|major|different|various))\b|\b(main|key|major|overall|various|"
    r"different) (points|aspects|themes|issues|factors|challenges|priorities|arguments|ideas)\b",
    re.IGNORECASE,
)
_DIRECT = re.compile(
    r"^\s*(hi|hello|hey|thanks|thank you)\b|^\s*(what is|compute|calculate)\s+[\d\s+*/().-]+\??$", re.IGNORECASE
)
_QWORDS = QUESTION_WORDS


def classify(question: str) -> tuple[QueryClass, list[str]]:
    """Query class and up to five domain tags (the question's entities, then its content words)."""
    if _REASONING.search(question):
        qclass: QueryClass = "reasoning"
    elif _BROAD.search(question):
        qclass = "broad_synthesis"
    else:
        qclass = "precise_fact"
    tags = [e.lower() for e in extract_entities(question)]
    for w in re.findall(r"[A-Za-z][\w-]+", question.lower()):
        if w not in STOPWORDS and w not in _QWORDS and len(w) > 3 and not any(w in t for t in tags):
            tags.append(w)
    return qclass, tags[:5]


def pick_mode(question: str, has_llm: bool) -> Mode:
    if has_llm and _DIRECT.search(question):
        return "direct"
    return "recent" if asks_recent(question) else "corpus"


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
            if mode == "direct" and not _DIRECT.search(question):
                mode = "recent" if asks_recent(question) else "corpus"
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
