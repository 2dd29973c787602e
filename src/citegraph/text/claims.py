"""The claim model shared by ingestion (factual density), fact extraction and contradiction detection.

A claim is an atomic statement: a sentence, or a clause of one split at semicolons, with stage
directions ("[Applause]", "(Laughter.)") left out and a sentence longer than MAX_CLAIM_CHARS cut into
clauses at its commas, colons and dashes. For each claim we read the cues the FD* paper scores
verifiability and specificity by — numbers, units, dates, named entities — and the cues that lower it —
hedges, opinion, questions, imperatives. `prob_fact` maps them into [0.2, 1.0]: it says how checkable a
statement is, not whether it is true.

`kind` says whether a claim reads as prose ("prose") or is something a sentence splitter cut from a
code block, a table of options, a hex dump or markup ("code", "options", "data", "markup"): those are
quoted as answers only when the question asks for code (text/answerability.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from citegraph.text.sentences import Sentence, document_sentences

_NUMBER = re.compile(
    r"(?<![\w.])[-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:\s?(?:%|percent|per cent))?", re.IGNORECASE
)
_SCALE = re.compile(r"^\s*(thousand|million|billion|trillion)\b", re.IGNORECASE)
_UNIT = re.compile(
    r"(%|\$|€|£|\b(?:percent|per cent|km|kilomet(?:er|re)s?|miles?|kg|kilograms?|tons?|tonnes?|"
    r"meters?|metres?|feet|foot|inches|mph|hours?|minutes?|seconds?|days?|weeks?|months?|years?|"
    r"dollars?|euros?|pounds?|people|persons|troops|soldiers|jobs|students|deaths|cases|votes|"
    r"acres|square|degrees?|°[CF]?|GW|MW|kW|mg|ml|mm|cm)\b)",
    re.IGNORECASE,
)
_MONTHS = (
    "january|february|march|april|may|june|july|august|september|october|november|december|"
    "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec"
)
_DATE = re.compile(
    rf"\b(?:(?:{_MONTHS})\.?\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}|\d{{1,2}}\s+(?:{_MONTHS})\.?\s+\d{{4}}|"
    rf"(?:{_MONTHS})\.?\s+\d{{4}}|\d{{4}}-\d{{2}}-\d{{2}}|(?:1[5-9]|20)\d{{2}}s?)\b",
    re.IGNORECASE,
)
# Capital letters of the Latin scripts, accented ones included: "Ögedei", "Émile" and "Łódź" are names too
# (a model's "Ögedei Khan", absent from its quote, passed the support check when only A-Z began a name).
_UPPER = "".join(c for c in map(chr, range(0x250)) if c.isupper())
_ENTITY = re.compile(rf"\b[{_UPPER}][\w'’.-]*(?:\s+(?:of|the|for|de|la|du|der|von|van|and|&)?\s*[{_UPPER}][\w'’.-]*)*")
_HEDGE = re.compile(
    r"\b(may|might|could|possibly|perhaps|probably|likely|unlikely|suggests?|appears?|seems?|"
    r"believed?|thinks?|hopes?|estimated?|approximately|about|around|roughly|reportedly|allegedly|"
    r"potentially|arguably)\b",
    re.IGNORECASE,
)
_OPINION = re.compile(
    r"\b(I|we|my|our|you|your)\b|\b(should|must|ought|great|greatest|wonderful|terrible|best|worst|"
    r"proud|believe|hope|wish|let us|let's)\b",
    re.IGNORECASE,
)
_NEGATION = re.compile(
    r"\b(not|no|never|none|neither|nor|cannot|without|n't|denied|denies|failed|fails|false|refused)\b|n't\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"\w+")
_SENT_START_WORDS = frozenset(
    [
        "The",
        "A",
        "An",
        "This",
        "That",
        "These",
        "Those",
        "It",
        "In",
        "On",
        "At",
        "For",
        "But",
        "And",
        "Or",
        "If",
        "When",
        "While",
        "As",
        "After",
        "Before",
        "Since",
        "Although",
        "Because",
        "However",
        "Today",
        "Yesterday",
        "Tonight",
        "We",
        "I",
        "You",
        "They",
        "He",
        "She",
        "There",
        "Here",
    ]
)
# Question and imperative openers are capitalised but never names.
_SENT_START_WORDS |= frozenset(
    "What Which Who Whom Whose When Where Why How Is Are Was Were Do Does Did Can Could Would Should Will "
    "Name List Describe Explain Compare Summarize Summarise Tell Give".split()
)


@dataclass(frozen=True)
class Claim:
    """One atomic statement with its span in the source text and its cues."""

    text: str
    start: int
    end: int
    numbers: tuple[str, ...] = ()
    dates: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    units: int = 0
    hedged: bool = False
    opinion: bool = False
    negated: bool = False
    question: bool = False
    n_words: int = 0
    prob_fact: float = field(default=0.2)
    kind: str = "prose"


def extract_numbers(text: str) -> list[str]:
    """Numbers as written, normalised: '1,200' -> '1200', '3 million' -> '3000000', '5%' -> '5%'.
    Years inside dates are included: callers that compare values decide what to make of them."""
    out = []
    for m in _NUMBER.finditer(text):
        raw = m.group(0).replace("−", "-")
        pct = raw.rstrip().endswith(("%", "percent", "per cent"))
        num = re.sub(r"\s*(%|percent|per cent)$", "", raw, flags=re.IGNORECASE).replace(",", "")
        try:
            value = float(num)
        except ValueError:
            continue
        scale = _SCALE.match(text[m.end() :])
        if scale:
            value *= {"thousand": 1e3, "million": 1e6, "billion": 1e9, "trillion": 1e12}[scale.group(1).lower()]
        s = f"{value:.6g}" if value != int(value) or abs(value) >= 1e15 else str(int(value))
        out.append(s + ("%" if pct else ""))
    return out


def extract_entities(text: str) -> list[str]:
    """Capitalised word runs, leaving out a sentence-initial function word ("The", "In"…)."""
    ents = []
    for m in _ENTITY.finditer(text):
        words = m.group(0).split()
        while words and words[0] in _SENT_START_WORDS:
            words = words[1:]
        ent = " ".join(words).strip(".,;:'’-")
        if ent and not ent.isdigit():
            ents.append(ent)
    return ents


def score_claim(text: str, start: int = 0) -> Claim:
    words = _WORD.findall(text)
    numbers = tuple(extract_numbers(text))
    dates = tuple(m.group(0) for m in _DATE.finditer(text))
    entities = tuple(extract_entities(text))
    units = len(_UNIT.findall(text))
    hedged = bool(_HEDGE.search(text))
    opinion = bool(_OPINION.search(text))
    question = text.rstrip().endswith("?")
    p = 0.35
    p += 0.2 if numbers else 0.0
    p += 0.1 if units and numbers else 0.0
    p += 0.15 if dates else 0.0
    p += min(len(entities), 3) * 0.07
    p -= 0.15 if hedged else 0.0
    p -= 0.15 if opinion else 0.0
    p -= 0.1 if len(words) < 5 else 0.0
    if question:
        p = 0.2
    kind = text_kind(text)
    if kind != "prose":
        p = 0.2
    return Claim(
        text=text,
        start=start,
        end=start + len(text),
        numbers=numbers,
        dates=dates,
        entities=entities,
        units=units,
        hedged=hedged,
        opinion=opinion,
        negated=bool(_NEGATION.search(text)),
        question=question,
        n_words=len(words),
        prob_fact=round(min(1.0, max(0.2, p)), 4),
        kind=kind,
    )


_HEX = re.compile(r"^(0x)?[0-9a-fA-F]{2,16}$")
_OPTION_LINE = re.compile(r"^\s*(-{1,2}[A-Za-z0-9][\w-]*|\+[A-Za-z])(=\S+|\s+[A-Z<\[][\w<>\[\]=|.-]*)?(,|\s{2,}|$)")
_PROMPT = re.compile(r"^\s*(\$|>>>|\.\.\.|#include|%|C:\\>)\s")
_CODE_CHARS = set("{}[]()<>;=|\\$`*&^~")
_RULE = re.compile(r"^[\s\-=_*#~^+.`:|]{3,}$")
# A statement of code that prose does not start with: a dotted name called ("table.add_row(…)",
# "console.print(…)") or assigned from a call ("table = Table(…)"), on the whole text.
# (Not a man page's header, "ld.so(8)   System Manager's Manual   ld.so(8)".)
# …and not a sentence about one ("ParseResults.asXML() - if used for debugging, switch to …", a man
# page's justified line ending in "("): four plain words in a row, outside strings and comments.
_INLINE_CODE = re.compile(r"``[^`\n]+``|`[^`\n]+`")
_PLAIN_WORDS = re.compile(r"\b[a-z]+,?[ \t]+[a-z]+,?[ \t]+[a-z]+,?[ \t]+[a-z]+\b")
# Strings and comments: quotes that open and close a string on one line (not an apostrophe: "doesn't"),
# "#" that starts a comment (not "see #123").
_STRINGS = re.compile(r"\"[^\"\n]*\"|(?<!\w)'[^'\n]*'(?!\w)|(?:^|(?<=\s))#(?:\s.*)?$", re.M)
_BRACKET_LINE = re.compile(r"[(\[{]\s*$|^\s*[)\]}]")
_CALL = re.compile(
    r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\((?!\d\w*\)).*\)\s*;?$|^[A-Za-z_][\w.]*\s*=\s*[\w.]+\(.*\)\s*;?$", re.S
)


# One field of a record (METADATA, a Debian control file, an e-mail header): a capitalised key of
# words, a colon, a value.
_RECORD_FIELD = re.compile(r"^[A-Z][A-Za-z]+(?:[- ][A-Za-z]+){0,3}:\s+\S(?!.*[;{]\s*$)")


def text_kind(text: str) -> str:
    """ "prose", or what else a piece of text is: "markup" (rules, underlines), "data" (hex dumps,
    tables of numbers), "options" (a list of command-line options, --help text), "code"."""
    stripped = text.strip()
    if not stripped or _RULE.match(stripped):
        return "markup"
    tokens = stripped.split()
    if (
        len(tokens) >= 4
        and sum(bool(_HEX.match(t)) and any(ch.isdigit() for ch in t) for t in tokens) / len(tokens) > 0.5
    ):
        return "data"
    digits = sum(ch.isdigit() for ch in stripped)
    letters = sum(ch.isalpha() for ch in stripped)
    if len(tokens) >= 4 and digits > 2 * letters:
        return "data"
    lines = [ln for ln in stripped.splitlines() if ln.strip()]
    if len(lines) >= 2 and sum(bool(_OPTION_LINE.match(ln)) for ln in lines) >= 2:
        return "options"
    if _PROMPT.match(stripped) or any(_PROMPT.match(ln) for ln in lines[1:]):
        return "code"
    if len(lines) == 1 and _RECORD_FIELD.match(stripped):
        return "prose"  # "Requires-Python: >=2.7, !=3.0.*": a record's field states a fact, symbols or not
    # Code quoted inline in a sentence ("much faster than ``asyncio.wait_for()`` because ``timeout``
    # doesn't create a new task") is a name in prose: its symbols are not the sentence's.
    outside = _INLINE_CODE.sub("x", stripped)
    measured = outside if _PLAIN_WORDS.search(outside) else stripped
    symbols = sum(ch in _CODE_CHARS for ch in measured)
    if symbols / max(1, len(measured)) > 0.08 and symbols >= 4:
        return "code"
    if re.match(r"(//|/\*)\s", stripped):
        return "code"  # a comment in a code block ("// error: cannot borrow `i` as mutable … }")
    if not _PLAIN_WORDS.search(_STRINGS.sub("", stripped)):
        if _CALL.match(stripped):
            return "code"  # a method call or an assignment from a call ('console.print("Hello", …)')
        if len(lines) >= 3 and sum(bool(_BRACKET_LINE.search(ln)) for ln in lines) >= 2:
            return "code"  # lines that open or close arguments, a list, a block: 'table.add_row(', ')'
    if re.search(r"^\s*(def|class|import|from \S+ import|function|var|let|const|return)\b|[;{}]\s*$", stripped, re.M):
        return "code" if symbols >= 2 else "prose"
    return "prose"


# Headings of plain text: a line underlined with a run of dashes or equals signs (joined to it as one
# sentence: "Makefile.pre.in issues ------"), and a Debian changelog entry's first line, the release it
# heads ("libcap-ng (0.8.3-1+b3) sid; urgency=medium").
_UNDERLINED = re.compile(r"\S.*\s[-=~^*]{3,}$", re.DOTALL)
_DEBIAN_ENTRY = re.compile(r"^[a-z0-9][a-z0-9.+-]+ \([^()\s]*\d[^()\s]*\) [a-z][\w-]*( [a-z][\w-]*)*(;|$)")


def is_heading(text: str) -> bool:
    """A heading, not a statement: Markdown's "# …", an underlined line, a Debian changelog entry's line."""
    stripped = text.strip()
    return stripped.startswith("#") or bool(_UNDERLINED.match(stripped) or _DEBIAN_ENTRY.match(stripped))


# A quote long enough to be a paragraph reads badly and hides its point: cut longer sentences. (At
# 300 the cut fell inside too many of SQuAD's long answer sentences: gold contained -5 points on 200.)
MAX_CLAIM_CHARS = 400
# Transcripts' stage directions: not what anybody said.
_STAGE = re.compile(
    r"[\[(]\s*(applause|laughter|cheers|cheering|boos|booing|music|inaudible|crosstalk|silence|pause|"
    r"audience[^\])]{0,30}|standing ovation)[.!]?\s*[\])]\.?",
    re.IGNORECASE,
)


def claims(text: str, offset: int = 0, sents: list[Sentence] | None = None) -> list[Claim]:
    """The atomic claims of a text: its sentences, split further at semicolons and stage directions,
    long ones cut into clauses. Spans are offsets into `text` plus `offset`."""
    out = []
    for s in document_sentences(text) if sents is None else sents:
        for a, z in _clauses(text, s.start, s.end):
            piece = text[a:z]
            if len(_WORD.findall(piece)) >= 3:
                out.append(score_claim(piece, offset + a))
    return out


def _trim(text: str, a: int, z: int) -> tuple[int, int]:
    while a < z and text[a] in " \t\n,;:—–-":
        a += 1
    while z > a and text[z - 1] in " \t\n,;:—–-":
        z -= 1
    return a, z


def _clauses(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans, pos = [], start
    for m in re.finditer(r";\s+|" + _STAGE.pattern, text[start:end], re.IGNORECASE):
        spans.append((pos, start + m.start()))
        pos = start + m.end()
    spans.append((pos, end))
    out = []
    for a, z in spans:
        a += len(text[a:z]) - len(text[a:z].lstrip())
        a, z = _trim(text, a, z) if z - a > MAX_CLAIM_CHARS else (a, z)
        if z - a > MAX_CLAIM_CHARS:
            out.extend(_cut(text, a, z))
        elif z > a and text[a:z].strip():
            out.append((a, z))
    return out


def _cut(text: str, start: int, end: int) -> list[tuple[int, int]]:
    """A long sentence as consecutive pieces of at most MAX_CLAIM_CHARS, cut after a comma, colon or
    dash where one falls late enough, else at a space."""
    out = []
    a = start
    while end - a > MAX_CLAIM_CHARS:
        window = text[a : a + MAX_CLAIM_CHARS]
        cut = max(window.rfind(", "), window.rfind(": "), window.rfind(" — "), window.rfind(" - "))
        if cut < MAX_CLAIM_CHARS // 3:
            cut = window.rfind(" ")
        if cut <= 0:
            cut = MAX_CLAIM_CHARS
        piece = _trim(text, a, a + cut + 1)
        if piece[1] > piece[0]:
            out.append(piece)
        a = a + cut + 1
    piece = _trim(text, a, end)
    if piece[1] > piece[0]:
        out.append(piece)
    return out


# What a quote need not carry of a document's markup: a heading's hashes ("## 2.28.0 (2022-06-09)"), a
# list item's bullet ("* When using -p …"), a rule or underline on a line of its own before or after
# the words ("Noteworthy changes in release 4.14 (2016-10-04)\n====="). What is left is still the
# document's text at its span.
_LEAD_MARK = re.compile(r"\s+|#{1,6}[ \t]+|[*•‣+-][ \t]+")
_TRAIL_MARK = re.compile(r"(?:\s+|[ \t]+#+)$")


def quotable(text: str) -> tuple[int, int]:
    """The span of `text` (start, end offsets into it) a user is shown as its quote: `text` without the
    markup around its words; all of it when nothing but markup is there."""
    a, z = 0, len(text)
    while a < z:
        line_end = text.find("\n", a, z)
        if line_end != -1 and _RULE.match(text[a:line_end]):
            a = line_end + 1
            continue
        m = _LEAD_MARK.match(text, a, z)
        if not m or m.end() == a:
            break
        a = m.end()
    while z > a:
        line_start = text.rfind("\n", a, z)
        if line_start != -1 and _RULE.match(text[line_start + 1 : z]):
            z = line_start
            continue
        m = _TRAIL_MARK.search(text, a, z)
        if not m or m.start() == z:
            break
        z = m.start()
    return (a, z) if _WORD.search(text, a, z) else (0, len(text))


def quote_at(passage: str, passage_start: int, span: tuple[int, int], quote: str) -> bool:
    """Whether `quote` is exactly the passage's text at the document span `span` (the passage starts at
    `passage_start` of its document): a citation's check that its quote is where it says it is."""
    a, z = span[0] - passage_start, span[1] - passage_start
    return 0 <= a <= z <= len(passage) and passage[a:z] == quote
