"""The lexical floor of the support check on a model's sentence (issue 19): what a sentence names must
be in its cited quotes (names) or in them or the question (quoted terms, words of other scripts). A
citation means the cited text says it.

"The Japanese term for young pigeons is 'kazari' (Japanese: 貫子) [1]", citing a quote that reads
`guinea fowl`, names 'kazari' and 貫子, which neither the quote nor the question holds: it does not pass.
Numbers are checked by the writer already (answer/compose.py); this adds the names, quoted terms, words in
other scripts, and the ids the code uses for its own bookkeeping (which must never reach an answer).

It is a floor, not a proof: a sentence made only of words its quote holds can still say something the
quote does not. Above it the writer runs the learned check (reader.get_support_checker).
"""

from __future__ import annotations

import re

from citegraph.embed import known_words
from citegraph.text.claims import extract_entities

_QUOTED = re.compile(r"[\"“‘']([^\"“”‘’']{2,60})[\"”’']")
# Letters outside Latin script (CJK, Cyrillic, Greek, Arabic …): a model's invention shows there often.
_OTHER_SCRIPT = re.compile(r"[^\W\d_A-Za-z\u00C0-\u024F]+")
# Fact and chunk ids (sha1 prefixes) and passage ids the code hands a model.
_BOOKKEEPING = re.compile(r"\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{10,}\b|\b[\w-]+-[0-9a-f]{8}:[0-9a-f]{8}:\d+\b")
_WORD = re.compile(r"[^\W_]+")


def _words(text: str) -> set[str]:
    return {w.lower() for w in _WORD.findall(text)}


def _held(term: str, sources: str, source_words: set[str]) -> bool:
    if term.lower() in sources:
        return True
    words = _words(re.sub(r"['’]s\b", "", term))
    # "Etna's" / "Etna", "the US" / "US": every word of the term, each possibly without a possessive.
    return bool(words) and all(w in source_words or w.removesuffix("s") in source_words for w in words)


def unsupported_terms(sentence: str, quotes: list[str], question: str = "") -> list[str]:
    """What the sentence names that its cited quotes do not hold (empty: it passes). The question may
    supply its quoted terms and words of other scripts, not its names: a name the sentence states must
    be in what it cites. ("The Japanese term for young pigeons is squabs", citing "… guinea fowl and
    squabs (young pigeons)", takes "Japanese" from the question: of the model sentences labelled by
    reading whose names only the question held, 3 of 4 on the dev half were unsupported.)"""
    quoted = " ".join(quotes).lower()
    quoted_words = _words(quoted)
    sources = " ".join([*quotes, question]).lower()
    source_words = _words(sources)
    out: list[str] = []
    for m in _BOOKKEEPING.finditer(sentence):
        out.append(m.group(0))
    for term in [m.group(1) for m in _QUOTED.finditer(sentence)]:
        if not _held(term, sources, source_words):
            out.append(term)
    first = (_WORD.findall(sentence) or [""])[0]
    for e in extract_entities(sentence):
        if e == first and first.lower() in known_words():
            continue  # a common word capitalised only because it starts the sentence ("According to …")
        if not _held(e, quoted, quoted_words):
            out.append(e)
    for m in _OTHER_SCRIPT.finditer(sentence):
        if m.group(0).lower() not in sources:
            out.append(m.group(0))
    return list(dict.fromkeys(out))
