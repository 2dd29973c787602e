"""Do two statements disagree, and on what? The contradiction model of the extractive engine.

Two statements are aligned (about the same point) when most of their words match. Their word-level
difference then says what kind of edit separates them:
- a substitution (a value replaced by another: "hard rock" → "punk", "2" → "16", "President" →
  "Prime Minister") is a disagreement: the two cannot both hold;
- an insertion or a deletion (one says more than the other: "… by Roc-A-Fella Records and Def Jam")
  is not: the shorter one is silent, not contrary;
- a negation present in one and absent from the other flips the polarity, whatever else changed.
The substituted words say what the conflict is about: a number, a date, a name (entity) or wording.

Statements from different documents are seldom word-for-word alike; a number conflict is still
recognised between loosely aligned statements when both numbers measure the same thing (the same
word follows them, "310 million litres" / "295 million litres").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from citegraph.text.claims import extract_numbers
from citegraph.text.tokens import STOPWORDS

Kind = Literal["number", "date", "entity", "polarity", "wording"]

_TOKEN = re.compile(r"\d+(?:[.,]\d+)*%?|[A-Za-z][\w'’-]*|[^\s\w]")
_NEGATIONS = frozenset(
    ["not", "no", "never", "none", "neither", "nor", "cannot", "without", "n't", "nobody", "nothing", "nowhere"]
)
_MONTHS = frozenset(
    [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
        "jan",
        "feb",
        "mar",
        "apr",
        "jun",
        "jul",
        "aug",
        "sep",
        "sept",
        "oct",
        "nov",
        "dec",
    ]
)
_YEAR = re.compile(r"^(1[5-9]\d\d|20\d\d)s?$")
# Aligned: share at least this much of their words (difflib ratio over lowercased tokens).
ALIGNED = 0.6
# Loosely aligned, enough for a number conflict when the numbers measure the same thing.
LOOSE = 0.3


@dataclass(frozen=True)
class Conflict:
    kind: Kind
    values: tuple[str, str]  # as written in each statement
    point: str  # the words the statements share around the disagreement
    similarity: float


def _tokens(text: str) -> tuple[list[str], list[str]]:
    raw = [t for t in _TOKEN.findall(text.replace("n't", " n't")) if t.strip()]
    return raw, [t.lower() for t in raw]


def _negations(tokens: list[str]) -> int:
    return sum(1 for t in tokens if t in _NEGATIONS)


def _is_date(tokens: list[str]) -> bool:
    return any(_YEAR.match(t) or t in _MONTHS for t in tokens)


def _content(tokens: list[str]) -> list[str]:
    return [t for t in tokens if t.isalnum() and t not in STOPWORDS]


def _point(a_low: list[str], blocks: list[tuple[int, int, int]], limit: int = 8) -> str:
    words = [w for i, j, n in blocks for w in a_low[i : i + n] if w.isalnum() and w not in STOPWORDS]
    return " ".join(words[:limit])


_SCALES = frozenset("thousand million billion trillion percent per cent".split())


def _numbers_with_units(span: list[str], low: list[str], raw: list[str]) -> list[tuple[str, str | None, str]]:
    """(normalised value, the word it counts, the number as written) for each number in a replaced
    span; `span` is a slice of `low`, located again to read the words that follow each number."""
    out: list[tuple[str, str | None, str]] = []
    start = next((i for i in range(len(low) - len(span) + 1) if low[i : i + len(span)] == span), None)
    if start is None:
        return out
    for k, tok in enumerate(span):
        values = extract_numbers(tok)
        if not values:
            continue
        i = start + k
        nxt = [t for t in low[i + 1 : i + 4] if t.isalpha()]
        scale = nxt[0] if nxt and nxt[0] in _SCALES else ""
        unit = next((t for t in nxt if t not in _SCALES and t not in STOPWORDS and t != "of"), None)
        value = extract_numbers(f"{tok} {scale}".strip())[0] if scale else values[0]
        written = raw[i] + (f" {scale}" if scale else "")
        out.append((value, unit, written))
    return out


def compare(a: str, b: str) -> Conflict | None:
    """The disagreement between two statements, or None if they agree, are silent on each other's
    point, or are about different things."""
    a_raw, a_low = _tokens(a)
    b_raw, b_low = _tokens(b)
    if not a_low or not b_low:
        return None
    sm = SequenceMatcher(a=a_low, b=b_low, autojunk=False)
    sim = sm.ratio()
    if sim < LOOSE:
        return None
    point = _point(a_low, [tuple(x) for x in sm.get_matching_blocks()])  # type: ignore[misc]
    substitutions: list[tuple[list[str], list[str], list[str], list[str], int, int]] = []
    for op, i1, i2, j1, j2 in sm.get_opcodes():
        if op == "replace":
            substitutions.append((a_raw[i1:i2], b_raw[j1:j2], a_low[i1:i2], b_low[j1:j2], i2, j2))

    # Numbers: compare values, not spellings ("1,500" = "1500"), and only numbers that measure the
    # same thing: the same word follows both ("310 million litres" / "295 million litres").
    for _, _, la, lb, _, _ in substitutions:
        pa, pb = _numbers_with_units(la, a_low, a_raw), _numbers_with_units(lb, b_low, b_raw)
        for va, ua, wa in pa:
            for vb, ub, wb in pb:
                if va != vb and ((ua == ub and ua is not None) or (sim >= ALIGNED and len(pa) == len(pb) == 1)):
                    kind: Kind = "date" if _YEAR.match(wa) and _YEAR.match(wb) else "number"
                    return Conflict(kind, (wa, wb), point, sim)
    if sim < ALIGNED:
        return None
    if _negations(a_low) != _negations(b_low):
        neg = "not " if _negations(a_low) > _negations(b_low) else ""
        return Conflict("polarity", (f"{neg}…", "…" if neg else "not …"), point, sim)
    for ra, rb, la, lb, _, _ in substitutions:
        if not _content(la) and not _content(lb):
            continue  # "a" → "the": no claim changed
        if _is_date(la) and _is_date(lb):
            return Conflict("date", (" ".join(ra), " ".join(rb)), point, sim)
        if any(t[:1].isupper() for t in ra) and any(t[:1].isupper() for t in rb):
            return Conflict("entity", (" ".join(ra), " ".join(rb)), point, sim)
        return Conflict("wording", (" ".join(ra), " ".join(rb)), point, sim)
    return None


def is_rounding(a: str, b: str) -> bool:
    """One value is the other rounded to fewer significant digits ("3.5 million" / "3,512,000")."""
    na, nb = extract_numbers(a), extract_numbers(b)
    if not na or not nb:
        return False
    x, y = float(na[0].rstrip("%")), float(nb[0].rstrip("%"))
    if x == y:
        return True

    def digits(v: float) -> int:  # significant digits as written
        return len(f"{v:.15g}".replace("-", "").replace(".", "").strip("0")) or 1

    coarse, fine = (x, y) if digits(x) < digits(y) else (y, x)
    if digits(coarse) == digits(fine):
        return False
    from math import floor, log10

    scale = 10 ** (floor(log10(abs(fine))) - digits(coarse) + 1) if fine else 1
    return bool(round(fine / scale) * scale == coarse)


def relative_difference(a: str, b: str) -> float | None:
    """|a - b| / max(|a|, |b|) for the first number of each value, or None."""
    na, nb = extract_numbers(a), extract_numbers(b)
    if not na or not nb:
        return None
    x, y = float(na[0].rstrip("%")), float(nb[0].rstrip("%"))
    top = max(abs(x), abs(y))
    return abs(x - y) / top if top else 0.0
