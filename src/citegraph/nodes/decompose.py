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
import re

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field

from citegraph.context import Context
from citegraph.embed import known_words
from citegraph.llm import structured_call
from citegraph.nodes import corpus_words, timed, trace
from citegraph.prompts import DECOMPOSE
from citegraph.schemas import QueryClass, SubQuery
from citegraph.state import State
from citegraph.text.answerability import asks_default, asks_requirement, key_terms
from citegraph.text.claims import extract_entities
from citegraph.text.tokens import QUESTION_WORDS, STOPWORDS

_QUOTED = re.compile(r"[\"“”‘’']([^\"“”‘’']{2,})[\"“”‘’']")
_WORD = re.compile(r"[\w'’-]+")
_QWORDS = QUESTION_WORDS | {"the", "a", "an", "of"}
_FACETS = {
    "broad_synthesis": ["main points", "history", "limitations"],
    "reasoning": ["causes reasons", "mechanism effects", "limitations"],
}


def sanitize(sub_query: str, question: str) -> str | None:
    """Remove from a sub-query every number, quoted title and capitalised name that the question does
    not contain; None if what is left adds nothing searchable."""
    q_lower = question.lower()
    q_words = {w.lower().strip("'’") for w in _WORD.findall(question)}
    text = sub_query
    for m in _QUOTED.finditer(sub_query):  # an invented title goes as a whole
        if m.group(1).lower() not in q_lower:
            text = text.replace(m.group(0), " ")
    kept = []
    for i, w in enumerate(_WORD.findall(text)):
        bare = w.lower().strip("'’")
        if any(ch.isdigit() for ch in w) and bare not in q_words:
            continue  # a number the question does not contain
        if w[:1].isupper() and bare not in q_words and (i > 0 or bare not in _QWORDS):
            continue  # a name or title the question does not contain
        kept.append(w)
    out = " ".join(kept).strip()
    content = [w for w in kept if w.lower() not in STOPWORDS and w.lower() not in _QWORDS]
    return out if content else None


def _keywords(question: str, exclude: list[str]) -> str:
    skip = {w.lower() for e in exclude for w in e.split()}
    words = [
        w
        for w in _WORD.findall(question)
        if w.lower() not in STOPWORDS and w.lower() not in _QWORDS and w.lower() not in skip
    ]
    return " ".join(words)


def extractive_sub_queries(
    question: str, qclass: QueryClass, limit: int, names: list[str] | None = None
) -> list[SubQuery]:
    """`names`: the question's key terms (answerability.key_terms), given when it asks a requirement."""
    out = [SubQuery(text=question.strip(), facet="question")]
    entities = list(dict.fromkeys(extract_entities(question)))
    if len(entities) >= 2:
        rest = _keywords(question, entities)
        for e in entities:
            out.append(SubQuery(text=f"{e} {rest}".strip(), facet=f"entity: {e}"))
    # Several asks joined in one question ("X and what Y"): each clause on its own.
    parts = [p.strip(" ,;?") for p in re.split(r";|,? and (?=(?:what|who|when|where|why|how|which)\b)", question)]
    if len(parts) > 1:
        out += [SubQuery(text=p, facet="clause") for p in parts if len(p.split()) >= 3]
    topic = _keywords(question, [])
    for facet in _FACETS.get(qclass, []):
        out.append(SubQuery(text=f"{topic} {facet}", facet=facet))
    if asks_default(question) and not re.search(r"\bdefault", question, re.IGNORECASE):
        # "If I don't pass a size…" is answered by "default size is 1000 lines": search for that word too.
        out.append(SubQuery(text=f"{topic} default", facet="default"))
    if asks_requirement(question):
        # "Which Python versions does Jinja2 support?" is answered by "Requires-Python: >=3.7": search
        # for what is named and that word. With the question's other words ("minimum", "declares",
        # "needs", "package") a packaging policy that names no package outranked the METADATA line.
        # One name alone ("Python") is the question's words again: a package named by a plain word that no
        # file is named for ("click") is still in them.
        subject = " ".join(names) if names and len(names) > 1 else topic
        out.append(SubQuery(text=f"{subject} requires", facet="requires"))
    return dedupe(out, question, limit)


def dedupe(subs: list[SubQuery], question: str, limit: int) -> list[SubQuery]:
    """Sanitize, drop empty and repeated sub-queries, keep at most `limit` (the question first)."""
    seen: set[str] = set()
    out = []
    for s in subs:
        clean = sanitize(s.text, question)
        if not clean:
            continue
        key = " ".join(sorted(clean.lower().split()))
        if key in seen:
            continue
        seen.add(key)
        out.append(s.model_copy(update={"text": clean}))
    return out[:limit]


def requirement_names(ctx: Context, question: str) -> list[str]:
    """The question's key terms, the corpus's names among them ("itsdangerous"), and its words a file of
    the corpus is named for even when the dictionary knows them ("click" of click-8.1.7.METADATA.txt).
    Opens the corpus: call it off the event loop."""
    written = corpus_words(ctx, []).name_words()
    keys = key_terms(question, known_words(), written)
    have = {k.lower() for k in keys}
    named = [w for w in _WORD.findall(question) if w.lower() in written and w.lower() not in have]
    return keys + list(dict.fromkeys(named))


class Decomposition(BaseModel):
    sub_queries: list[str] = Field(description="Short search queries, each probing a distinct facet")


@timed
async def decompose_question(state: State, runtime: Runtime[Context]) -> dict:
    ctx = runtime.context
    question, qclass = state["question"], state["query_class"]
    limit = max(1, min(ctx.max_sub_queries, 5))
    names = await asyncio.to_thread(requirement_names, ctx, question) if asks_requirement(question) else None
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
