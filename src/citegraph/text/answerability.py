"""How well a statement bears on a question, and whether the facts found answer it at all.

Relevance of a fact = 0.5 · cosine(question, fact) + 0.5 · idf-weighted coverage of the question's
terms by the fact's passage. Coverage weighs rare terms most: a question about "the Japanese term for
young pigeons" over a passage about pigeons misses its rarest term, "japanese", and loses most of its
coverage even though the topic matches.

Support for an answer = the best fact's relevance, discounted when the question asks for a kind of
value (a number, a date, a name) that the fact does not contain beyond what the question already
says. The graph abstains below a threshold (Context.abstain_threshold).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Literal

from citegraph.text.claims import Claim, extract_entities, score_claim
from citegraph.text.tokens import QUESTION_WORDS, tokenize

AnswerType = Literal["number", "date", "entity"] | None

_NUMBER_Q = re.compile(
    r"\b(how (many|much|long|old|far|large|big|tall|high|often)|what (percentage|percent|number|amount|proportion|"
    r"share|fraction)|what was the (population|size|cost|price|score))\b",
    re.IGNORECASE,
)
_DATE_Q = re.compile(
    r"\b(when|what (year|date|decade|century|month)|which (year|date|decade|century))\b", re.IGNORECASE
)
_ENTITY_Q = re.compile(
    r"^\s*(who|whom|whose|where)\b|\b(which|what) (person|city|country|company|team|state|"
    r"organization|organisation|band|group|university|party|president)\b",
    re.IGNORECASE,
)
_QUESTION_WORDS = frozenset(tokenize(" ".join(QUESTION_WORDS) + " name type kind"))
TYPE_DISCOUNT = 0.75


def answer_type(question: str) -> AnswerType:
    if _NUMBER_Q.search(question):
        return "number"
    if _DATE_Q.search(question):
        return "date"
    if _ENTITY_Q.search(question):
        return "entity"
    return None


def question_terms(question: str) -> list[str]:
    """The question's content terms (BM25 tokens, stemmed), without question words."""
    return list(dict.fromkeys(t for t in tokenize(question) if t not in _QUESTION_WORDS))


def coverage(terms: list[str], idf: dict[str, float], text: str) -> float:
    """Share of the question's idf mass whose terms occur in `text`."""
    if not terms:
        return 0.0
    present = set(tokenize(text))
    total = sum(idf.get(t, 1.0) for t in terms)
    return sum(idf.get(t, 1.0) for t in terms if t in present) / total if total > 0 else 0.0


def relevance(cosine: float, cov: float) -> float:
    return max(0.0, min(1.0, 0.5 * max(cosine, 0.0) + 0.5 * cov))


def has_answer_type(kind: AnswerType, claim: Claim, question: str) -> bool:
    """Whether a claim holds a value of the kind asked, beyond the values the question itself names."""
    if kind is None:
        return True
    q = score_claim(question)
    if kind == "number":
        return bool(set(claim.numbers) - set(q.numbers))
    if kind == "date":
        years = re.findall(r"\b(1[5-9]\d\d|20\d\d)\b", claim.text)
        return bool(set(claim.dates) - set(q.dates)) or bool(set(years) - set(re.findall(r"\d{4}", question)))
    q_ents = {e.lower() for e in extract_entities(question)}
    return any(e.lower() not in q_ents for e in claim.entities)


def support(scored: Iterable[tuple[float, bool]]) -> float:
    """Support for an answer from (relevance, holds-the-asked-kind-of-value) of each fact."""
    best = 0.0
    for rel, typed in scored:
        best = max(best, rel if typed else rel * TYPE_DISCOUNT)
    return round(best, 4)


IdfLookup = Callable[[list[str]], dict[str, float]]
