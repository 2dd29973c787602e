"""The BM25 tokenizer: lowercase word tokens with English stopwords removed, optionally stemmed.

Both BM25 backends get exactly these tokens, so they rank alike. Word tokens matter: LangChain's
whitespace tokenizer cost BM25 a fifth of its nDCG@10 on squad-dev (0.696 vs 0.855, DESIGN.md).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from bm25s.stopwords import STOPWORDS_EN

_WORD = re.compile(r"\w+", re.UNICODE)
STOPWORDS = frozenset(STOPWORDS_EN)
# Words that shape a question rather than say what it is about.
QUESTION_WORDS = frozenset(
    "what which who whom whose when where why how does did do is are was were can could would should will "
    "many much".split()
)


@lru_cache(maxsize=4)
def _stemmer(language: str):
    import Stemmer

    return Stemmer.Stemmer(language)


# British and American spellings of one word: a question about a "licence" must find the "License"
# line. Mapped on stems, so every inflection follows ("organised", "organisation" → organ-).
_UK_US = (
    "colour color behaviour behavior favour favor honour honor labour labor neighbour neighbor flavour flavor "
    "humour humor licence license defence defense offence offense centre center metre meter litre liter "
    "fibre fiber catalogue catalog dialogue dialog analogue analog analyse analyze paralyse paralyze "
    "organise organize recognise recognize initialise initialize serialise serialize normalise normalize "
    "optimise optimize customise customize authorise authorize finalise finalize minimise minimize "
    "maximise maximize utilise utilize prioritise prioritize summarise summarize synchronise synchronize "
    "sanitise sanitize tokenise tokenize categorise categorize characterise characterize emphasise emphasize "
    "realise realize specialise specialize standardise standardize visualise visualize localise localize "
    "parametrise parametrize travelled traveled cancelled canceled modelling modeling labelled labeled "
    "grey gray programme program artefact artifact judgement judgment ageing aging aluminium aluminum "
    "enrol enroll fulfil fulfill"
).split()


_US_WORD = dict(zip(_UK_US[::2], _UK_US[1::2], strict=True))


@lru_cache(maxsize=1)
def _us_stem() -> dict[str, str]:
    stem = _stemmer("english").stemWord
    return {stem(uk): stem(us) for uk, us in _US_WORD.items() if stem(uk) != stem(us)}


def tokenize(text: str, stem: bool = True) -> list[str]:
    words = [w for w in _WORD.findall(text.lower()) if w not in STOPWORDS]
    if stem:
        us = _us_stem()
        return [us.get(t, t) for t in _stemmer("english").stemWords(words)]
    return [_US_WORD.get(w, w) for w in words]


# A version or a dotted name as written ("3.6.0", "login.defs", "time.monotonic"; "v5.17" is "5.17"): the
# word tokens alone ("3", "6", "0") match any passage that holds those digits anywhere, so
# "lm-sensors 3.6.0" ranked 3.3.5's entry beside 3.6.0's. A version ends where its digits do
# ("arrow-1.3.0.dist-info" holds "1.3.0").
_DOTTED = re.compile(r"(?<![\w.])(?:v?(\d+(?:\.\d+)+)|([a-z_]\w*(?:\.[a-z_]\w*)+))", re.UNICODE)


def dotted(text: str) -> list[str]:
    """The text's versions and dotted names, each whole (BM25 indexes them beside their parts)."""
    return [m.group(1) or m.group(2) for m in _DOTTED.finditer(text.lower())]


def sparse_tokens(text: str, stem: bool = True) -> list[str]:
    """What BM25 reads of a passage or a query: its word tokens, then its dotted words whole."""
    return tokenize(text, stem) + dotted(text)


def fold(token: str) -> str:
    """A token without its accents ("beyoncé" → "beyonce"): how a question may spell a name."""
    import unicodedata

    return "".join(ch for ch in unicodedata.normalize("NFKD", token) if not unicodedata.combining(ch))


def same_word(a: str, b: str) -> bool:
    """Two tokens that spell one word or one stem ("tajik" / "tajikistan", "africa" / "african"): equal
    once folded, or one a prefix of the other that is half of it or more (and at least 4 letters)."""
    a, b = fold(a), fold(b)
    if a == b:
        return True
    short, long = sorted((a, b), key=len)
    return len(short) >= max(4, 0.5 * len(long)) and long.startswith(short)


class Vocabulary:
    """Folded tokens, looked up by `same_word` (a sorted list: prefixes are neighbours)."""

    def __init__(self, tokens: Iterable[str]):
        import bisect

        self._bisect = bisect
        self.words = sorted({fold(t) for t in tokens if t})

    def has(self, token: str, typos: bool = False) -> bool:
        """Whether the vocabulary holds the token as `same_word` sees it; with `typos`, also one edit
        away for a word of 5 letters or more ("Marrch", "evidnce": how a question may misspell)."""
        t = fold(token)
        i = self._bisect.bisect_left(self.words, t[:4])
        while i < len(self.words) and self.words[i][:4] == t[:4]:
            if same_word(self.words[i], t):
                return True
            i += 1
        if typos and len(t) >= 5:
            i = self._bisect.bisect_left(self.words, t[:1])
            while i < len(self.words) and self.words[i][:1] == t[:1]:
                w = self.words[i]
                if abs(len(w) - len(t)) <= 1 and _one_edit(w, t):
                    return True
                i += 1
        return False


def _one_edit(a: str, b: str) -> bool:
    """At most one insertion, deletion, substitution or swap of neighbours between a and b."""
    if a == b:
        return True
    if len(a) > len(b):
        a, b = b, a
    i = 0
    while i < len(a) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :] or (a[i + 2 :] == b[i + 2 :] and a[i : i + 2] == b[i : i + 2][::-1])
    return a[i:] == b[i + 1 :]
