"""Sub-queries: up to 5, each probing a distinct facet; a precise fact may need only one. Plain Python,
no LangGraph: the `decompose` node (nodes/decompose.py) calls it.

Extractive engine: the question itself, one query per entity it names when it names several (a
comparison or a bridge between two things: each needs its own evidence), its clauses when it joins
several asks, and for broad and reasoning questions the facets the Agentic Hybrid RAG paper names
(mechanism, motivation, limitations).

Whatever the engine, `sanitize` enforces in code that a sub-query never brings in a number, a title
or a name that is not in the question: such words are removed, and a sub-query left with nothing of
its own is dropped.
"""

from __future__ import annotations

import re
from collections.abc import Set

from citegraph.embed import known_words
from citegraph.schemas import QueryClass, SubQuery
from citegraph.text.answerability import asks_default, asks_requirement, key_terms
from citegraph.text.claims import extract_entities
from citegraph.text.tokens import QUESTION_WORDS, STOPWORDS, tokenize

_QUOTED = re.compile(r"[\"“”‘’']([^\"“”‘’']{2,})[\"“”‘’']")


# A word keeps its inner dots, slashes and "=": "3.6.0", "/etc/login.defs" and "PollIntervalMaxSec=1M" are
# searched as written (split, "3 6 0" matched any passage holding those digits).
_WORD = re.compile(r"[\w'’-]+(?:[./=][\w'’-]+)*")


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
        # The field is searched by its name ("Requires-Dist" for another package's version), in lower case:
        # sanitize drops a capitalised word the question does not hold. (Found or not, the named packages'
        # field lines are read: nodes/retrieve.requirement_lines.)
        subject = " ".join(names) if names and len(names) > 1 else topic
        field = "requires-python" if "python" in tokenize(question) else "requires-dist"
        out.append(SubQuery(text=f"{subject} {field}", facet="requires"))
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


def requirement_names(question: str, written: Set[str]) -> list[str]:
    """The question's key terms, the corpus's names among them ("itsdangerous"), and its words a file of
    the corpus is named for even when the dictionary knows them ("click" of click-8.1.7.METADATA.txt);
    `written` are the corpus's name words (HybridRetriever.name_words)."""
    keys = key_terms(question, known_words(), written)
    have = {k.lower() for k in keys}
    named = [w for w in _WORD.findall(question) if w.lower() in written and w.lower() not in have]
    return keys + list(dict.fromkeys(named))
