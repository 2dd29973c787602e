"""Which of a passage's claims may answer a question: the extractive engine ranks them, and the LLM
engine's reading numbers them for the model (nodes/extract.py, nodes/read.py)."""

from __future__ import annotations

from functools import lru_cache

from citegraph.text import answerability as ans
from citegraph.text.claims import Claim, claims
from citegraph.text.injection import instruction_reason


@lru_cache(maxsize=256)
def passage_claims(text: str) -> tuple[Claim, ...]:
    """A passage's claims, split once: extraction reads them as candidates, as headings, as the
    context a claim is read in and for instructions (Claim is frozen, so sharing is safe)."""
    return tuple(claims(text))


def candidate_claims(question: str, text: str) -> list[Claim]:
    """The passage's claims that may answer: statements, not questions; prose, unless the question
    asks for code (then option lists and code lines too)."""
    code = ans.answer_type(question) == "code"
    return [
        c
        for c in passage_claims(text)
        if not c.question and (c.kind == "prose" or (code and c.kind != "markup")) and not instruction_reason(c.text)
    ]
