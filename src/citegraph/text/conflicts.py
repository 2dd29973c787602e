"""Do two statements disagree, and on what? The contradiction model of the extractive engine.

Two statements conflict only when they give different values of the same attribute of the same
subject. Precision comes first: a false conflict costs a reader's trust more than a missed one.

- Same subject: statements from documents whose titles name different subjects (the iris and the
  wine dataset descriptions, two packages' METADATA) do not conflict, however alike their words, nor do
  two whose differing words are each their own document's subject ("Tcl is …" in Tcl's README, "Tk is
  …" in Tk's).
- Same attribute: the statements must be aligned (most of their words match) and differ by exactly
  one substitution, of the value. A second substituted word ("malaria" → "HIV", "Iraq" →
  "Afghanistan", "in 2018" → "in 2020") means they are about different things, or different times.
  Words only one of them has are silence, not contradiction ("… by Roc-A-Fella Records and Def Jam"),
  unless they set a time ("in 2018"): then the two may be about different years. Two units after
  "of" ("the number of days" / "the number of seconds") are two measures, not two values.
- The substitution says what kind of conflict it is: a number, a version (">=3.6" / ">=3.9", as in
  METADATA files and changelogs), a date, a name (entity) or wording; a negation present in one and
  absent from the other flips the polarity.

Package metadata's "Author:", "Maintainer:" and "License:" lines are short, so their values are most of
their words: two such lines of one subject disagree when neither value holds the other ("John Machin" /
"Chris Withers"; not "MIT" / "MIT License").

Statements from different documents are seldom word-for-word alike; a number conflict is still
recognised between loosely aligned statements when both numbers measure the same thing (the same
word follows them, "310 million litres" / "295 million litres") and nothing else was substituted.
A conflict's `point` names its subject and attribute in words ("requests: Requires-Python").
"""

from __future__ import annotations

import re
from collections.abc import Set
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

from citegraph.schemas import Contradiction, Fact
from citegraph.text import answerability as ans
from citegraph.text.claims import extract_entities, extract_numbers
from citegraph.text.tokens import STOPWORDS, tokenize

Kind = Literal["number", "version", "date", "entity", "polarity", "wording"]

# A version specifier ("~=3.5", ">=2.7, !=3.0.*", "(<2.0,>=0.15)"), as in METADATA files: one value,
# so that "~=3.5" against ">=3.7" is one substitution, not an operator and a number changed apart. Only
# dotted versions: "> 300 metres" and "> 1,500" stay a mark and a number (a quantity, not a version),
# and an arrow ("-> 3.5") is no operator.
_ONE_SPEC = r"(?:[<>~!=]=|(?<![-=<>])[<>])\s*\d+(?:\.\d+)+(?:\.\*)?(?![\d%])"
_SPEC_LIST = rf"{_ONE_SPEC}(?:\s*,\s*{_ONE_SPEC})*"
_SPEC = rf"\({_SPEC_LIST}\)|{_SPEC_LIST}"
# Words ("doesn't" as "does" and "n't"), version specifiers, numbers as written ("1,500", "3.7"),
# single punctuation marks.
_TOKEN = re.compile(_SPEC + r"|\d+(?:[.,]\d+)*%?|[A-Za-z]+(?=n't\b)|n't\b|[A-Za-z][\w'’-]*|[^\s\w]")
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
# A wording conflict ("hard rock" / "punk") needs sentences nearly alike around it.
WORDING_ALIGNED = 0.75


@dataclass(frozen=True)
class Conflict:
    kind: Kind
    values: tuple[str, str]  # as written in each statement
    point: str  # the subject and attribute they disagree on
    similarity: float


def _tokens(text: str) -> tuple[list[str], list[str], list[tuple[int, int]]]:
    found = [m for m in _TOKEN.finditer(text) if m.group(0).strip()]
    raw = [m.group(0) for m in found]
    return raw, [t.lower() for t in raw], [m.span() for m in found]


_AUXILIARIES = frozenset("do does did is are was were be been has have had will would can could shall should".split())


def _affirmed(tokens: list[str]) -> list[str]:
    """A changed span without its negation and the auxiliary that carries it ("does not work")."""
    return [t for t in tokens if t not in _NEGATIONS and t not in _AUXILIARIES]


def _negations(tokens: list[str]) -> int:
    return sum(1 for t in tokens if t in _NEGATIONS)


def _is_date(tokens: list[str]) -> bool:
    return any(_YEAR.match(t) or t in _MONTHS for t in tokens)


def _content(tokens: list[str]) -> list[str]:
    """Words and numbers that carry a claim (not stopwords, not punctuation)."""
    return [
        t
        for t in tokens
        if (bool(_WORDLIKE.match(t)) or bool(_NUMERIC.match(t)) or bool(_SPEC_TOKEN.match(t))) and t not in STOPWORDS
    ]


_NUMERIC = re.compile(r"^\d+(?:[.,]\d+)*%?$")
_SPEC_TOKEN = re.compile(f"^(?:{_SPEC})$")
_WORDLIKE = re.compile(r"^\w[\w'’-]*$")


# Words that qualify a quantity rather than name what it counts: part of the value ("more than 500,000").
_QUALIFIERS = frozenset(
    "more than less fewer over under about around nearly almost approximately roughly some least most up "
    "exactly only just or later newer earlier".split()
)


# A value right after one of these at the start of a statement names the thing, it is not its value.
_NAMING = frozenset("version release v rev revision chapter section part step item figure table".split())


def _is_value(token: str) -> bool:
    return bool(extract_numbers(token)) or token in _MONTHS or token in _SCALES or token in _QUALIFIERS


_GENERIC_TITLE_WORDS = frozenset(
    "metadata pkg info readme changelog changes history news notes release releases relnotes txt md rst html htm pdf "
    "docs doc documentation index manual page guide user introduction overview about report reports update "
    "updates summary review annual edition draft final revised".split()
)


def subject_words(title: str) -> set[str]:
    """What a document is about, from its title: its words, less versions, years and generic words
    ("requests-2.31.0.METADATA" → {"requests"}, "arrow-1.3.0.dist-info: METADATA" → {"arrow"}: a wheel
    folder's suffix is no subject)."""
    title = re.sub(r"\.(dist|egg)-info\b", " ", title.lower())
    words = re.findall(r"[a-z][a-z0-9_]*", title.replace("-", " "))
    return {w for w in words if w not in STOPWORDS and w not in _GENERIC_TITLE_WORDS and len(w) > 1}


def same_subject(title_a: str, title_b: str) -> bool:
    """Whether two documents' titles name one subject: one's subject words hold the other's (a title
    that names nothing does not rule it out). "E0499 - Error codes index" and "E0502 - …" each name
    something the other does not: two subjects."""
    a, b = subject_words(title_a), subject_words(title_b)
    if not a or not b or title_a == title_b:
        return True
    return a <= b or b <= a


def _names_own_subject(value: str, title: str, other_title: str) -> bool:
    """Whether a value is what its own document is about and not what the other one is about."""
    words = subject_words(value)
    return bool(words) and words <= subject_words(title) and not words <= subject_words(other_title)


def named_in_both(a: str, b: str, title_a: str, title_b: str) -> list[str]:
    """Whether both statements name one subject that a document's title is about ("The Eiffel Tower is
    330 metres tall" in "The Eiffel Tower (official site)" and "… 42 metres tall" in a page whose title
    says something else): then the titles' disagreement does not make them two subjects. A title is the
    document's to choose; a poisoned one must not hide a disagreement. Returns the subject's words."""
    titled = subject_words(title_a) | subject_words(title_b)
    named_b = {e.lower() for e in extract_entities(b)}
    for e in extract_entities(a):
        words = subject_words(e)
        if e.lower() in named_b and words and words <= titled:
            return sorted(words)
    return []


_SCALES = frozenset("thousand million billion trillion percent per cent".split())
# Words that name what a number measures.
_UNITS = frozenset(
    "millisecond milliseconds ms second seconds sec secs minute minutes min mins hour hours day days week weeks "
    "month months year years byte bytes kb mb gb tb kib mib gib tib kilobytes megabytes gigabytes bit bits "
    "line lines character characters char chars percent".split()
)


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


_VERSIONISH = re.compile(r"^\d+\.\d+(\.\d+)*$")
# A "Key: value" line's key ("Home-page:", "Project-URL: Documentation,"): what the line is about.
_FIELD_KEY = re.compile(r"^\W{0,3}[A-Za-z][\w .-]{0,30}:(?=\s)")


# Keys of packaging metadata that describe the file, not the package: the format of a PKG-INFO of one
# release ("Metadata-Version: 1.2") and a wheel's METADATA of another ("2.1") is no disagreement about
# the package (realdocs8 p16 reported toolz's as one).
_FORMAT_KEYS = frozenset({"metadata-version", "wheel-version", "generator", "root-is-purelib", "tag"})


# Fields of package metadata whose value is a name: a short line, so most of its words are the value and
# the statements are never aligned the way sentences are.
_NAME_FIELDS = frozenset({"author", "maintainer", "license", "licence"})
# Words such a value may hold or not without naming anyone or anything else.
_FILLER_WORDS = frozenset({"license", "licence", "licensed", "version", "the", "v"})


# Licence families by the ways metadata names them, the more specific first.
_LICENCE_FAMILIES = (
    ("agpl", r"\bagpl|\baffero"),
    ("lgpl", r"\blgpl|\blesser general|\blibrary general"),
    ("gpl", r"\bgpl|\bgeneral public"),
    ("apache", r"\bapache|\basl\b"),
    ("mpl", r"\bmpl\b|\bmozilla"),
    ("epl", r"\bepl\b|\beclipse"),
    ("bsd", r"\bbsd"),
    ("mit", r"\bmit\b|\bexpat\b"),
    ("isc", r"\bisc\b"),
    ("psf", r"\bpsf\b|\bpython software foundation"),
    ("cc0", r"\bcc0\b|\bpublic domain"),
    ("zpl", r"\bzpl\b|\bzope public"),
    ("unlicense", r"\bunlicense\b"),
)


def _licence(value: str) -> tuple[str, str] | None:
    """A licence's family and version as metadata names it ("ASL 2.0" and "Apache-2.0": apache, 2), or
    None for a name not known."""
    low = value.lower()
    family = next((f for f, pattern in _LICENCE_FAMILIES if re.search(pattern, low)), None)
    if family is None:
        return None
    version = re.search(r"\d+(?:\.\d+)*", low)
    return family, re.sub(r"(\.0)+$", "", version.group(0)) if version else ""


def _named_field(a: str, b: str) -> tuple[str, tuple[str, str]] | None:
    """Two "Author:", "Maintainer:" or "License:" lines that name different people or licences
    ("Author: John Machin" / "Author: Chris Withers", "License: LGPL version 2.1" / "License: Apache-2.0"):
    the key and the two values. Not when one names what the other does and more ("MIT" / "MIT License",
    "BSD" / "BSD-3-Clause", "John Machin" / "John Machin, Chris Withers"): precision first."""
    fa, fb = _field(a), _field(b)
    if not fa or not fb:
        return None
    (key, va), (other_key, vb) = fa, fb
    if key.lower() != other_key.lower() or key.lower() not in _NAME_FIELDS:
        return None
    la, lb = _licence(va), _licence(vb)
    if key.lower() in ("license", "licence") and la and lb:
        # One licence under two names is no disagreement ("ASL 2.0" / "Apache-2.0", "LGPL version 2.1" /
        # "GNU Lesser General Public License v2.1"); another family, or another version of one, is.
        differ = la[0] != lb[0] or (la[1] and lb[1] and la[1] != lb[1])
        return (key, (va, vb)) if differ else None
    wa = {w for w in re.findall(r"[a-z0-9]+", va.lower()) if w not in _FILLER_WORDS}
    wb = {w for w in re.findall(r"[a-z0-9]+", vb.lower()) if w not in _FILLER_WORDS}
    if not wa or not wb or wa <= wb or wb <= wa:
        return None
    return key, (va, vb)


def _field(text: str) -> tuple[str, str] | None:
    """A "Key: value" line's key, as written without list marks ("Author"), and its value."""
    m = _FIELD_KEY.match(text)
    return (m.group(0).strip(" :").lstrip("-*# "), text[m.end() :].strip()) if m else None


def _format_field(text: str) -> bool:
    field = _field(text)
    return field is not None and field[0].lower() in _FORMAT_KEYS


def _in_key(text: str, spans: list[tuple[int, int]], i1: int, i2: int) -> bool:
    """Whether tokens i1..i2 of a "Key: value" line touch its key."""
    m = _FIELD_KEY.match(text)
    return m is not None and i1 < len(spans) and spans[i1][0] < m.end()


def _written(text: str, spans: list[tuple[int, int]], i1: int, i2: int) -> str:
    """The replaced tokens as the text writes them, with a comparison operator before and a "+" or
    ".*" after ("≥3.6", "3.7+")."""
    a, z = spans[i1][0], spans[i2 - 1][1]
    while a > 0 and text[a - 1] in "<>=!~^":
        a -= 1
    m = re.match(r"\+|\.\*", text[z:])
    written = " ".join(text[a : z + (m.end() if m else 0)].split())
    inner = written[1:-1]
    if written.startswith("(") and written.endswith(")") and "(" not in inner and ")" not in inner:
        written = inner  # "Werkzeug (<2.0,>=0.15)": the parentheses are the format's
    return written


def _attribute(
    raw: list[str], low: list[str], i1: int, i2: int, subject: set[str] | None = None, counts: bool = True
) -> str:
    """The words just before the value (and the one it counts, after it, unless `counts` is False: a
    version counts nothing, "3.6.1 and above" is not of "above"): what the value is of, without the
    subject's own name ("Rich requires Python" under "rich" is "requires Python")."""
    before: list[str] = []
    for j in range(i1 - 1, max(-1, i1 - 7), -1):
        t = low[j]
        if t in {".", ";", "!", "?"}:
            break
        before.insert(0, raw[j])
    while before and subject and before[0].lower() in subject:
        before = before[1:]
    words = " ".join(before).replace(" - ", "-").replace(" : ", ": ").strip(" :=<>!~^,(#*")
    after = (
        next(
            (
                raw[j]
                for j in range(i2, min(len(raw), i2 + 3))
                if raw[j].isalpha() and raw[j].islower() and low[j] not in STOPWORDS | _SCALES | _QUALIFIERS
            ),
            "",
        )
        if counts
        else ""
    )
    return " ".join(w for w in (words, after) if w)


_SUPPORTED_ON = {"for", "on", "with", "under", "supports", "supporting"}


def _version_attribute(words: str) -> str:
    """A version after "for Python" or "supports Python" is of the Python versions supported: the words
    before them describe the package ("A robust email address syntax and deliverability validation library
    for Python 3.8+" is "supported Python versions", not "… validation library for Python")."""
    tail = words.split()[-2:]
    if len(tail) == 2 and tail[0].lower() in _SUPPORTED_ON and tail[1][:1].isupper() and tail[1].isalpha():
        return f"supported {tail[1]} versions"
    return words


Opcode = tuple[str, int, int, int, int]


def _region(ops: list[Opcode], rep: Opcode) -> Opcode:
    """The substitution with the insertions and deletions that touch it: one changed region
    (">=2.7, !=3.0.*" against ">=3.7" is one value, not a value and a deletion)."""
    _, i1, i2, j1, j2 = rep
    for op in ops:
        if op[0] == "replace":
            continue
        _, a1, a2, b1, b2 = op
        if (a1 == i2 and b1 == j2) or (a2 == i1 and b2 == j1):
            i1, i2, j1, j2 = min(i1, a1), max(i2, a2), min(j1, b1), max(j2, b2)
    return "replace", i1, i2, j1, j2


def similarity(a: str, b: str) -> float:
    """How much of their words two statements share, in order (difflib's ratio over tokens)."""
    return SequenceMatcher(a=_tokens(a)[1], b=_tokens(b)[1], autojunk=False).ratio()


def compare(a: str, b: str, title_a: str = "", title_b: str = "") -> Conflict | None:
    """The disagreement between two statements, or None if they agree, are silent on each other's
    point, or are about different things (see the module docstring). The titles are those of the
    statements' documents."""
    if _format_field(a) or _format_field(b):
        return None
    named = [] if same_subject(title_a, title_b) else named_in_both(a, b, title_a, title_b)
    if not same_subject(title_a, title_b) and not named:
        return None
    a_raw, a_low, a_spans = _tokens(a)
    b_raw, b_low, b_spans = _tokens(b)
    if not a_low or not b_low:
        return None
    sm = SequenceMatcher(a=a_low, b=b_low, autojunk=False)
    sim = sm.ratio()
    subject = named or sorted(subject_words(title_a) & subject_words(title_b)) or sorted(subject_words(title_a))
    prefix = f"{' '.join(subject)}: " if subject else ""
    if (field := _named_field(a, b)) is not None:
        return Conflict("entity", field[1], prefix + field[0], sim)
    if sim < LOOSE:
        return None
    ops: list[Opcode] = [(str(op[0]), op[1], op[2], op[3], op[4]) for op in sm.get_opcodes() if op[0] != "equal"]
    replaces = [op for op in ops if op[0] == "replace"]
    # Words only one statement has: silence, unless they set a time ("in 2018").
    for op, i1, i2, j1, j2 in ops:
        if op in ("insert", "delete") and _is_date(a_low[i1:i2] + b_low[j1:j2]):
            return None

    if sim >= ALIGNED and _negations(a_low) != _negations(b_low):
        # Only the negation changed (and the verb's form with it: "works" / "does not work").
        side_a = {w for _, i1, i2, _, _ in ops for w in tokenize(" ".join(_affirmed(a_low[i1:i2])))}
        side_b = {w for _, _, _, j1, j2 in ops for w in tokenize(" ".join(_affirmed(b_low[j1:j2])))}
        if side_a == side_b:
            neg = "not " if _negations(a_low) > _negations(b_low) else ""
            point = prefix + " ".join(_content(a_low)[:6])
            return Conflict("polarity", (f"{neg}…", "…" if neg else "not …"), point, sim)
        return None
    if len(replaces) != 1:
        return None  # two substitutions: about different things (or nothing substituted: agreement)
    _, i1, i2, j1, j2 = _region(ops, replaces[0])
    if _in_key(a, a_spans, i1, i2) or _in_key(b, b_spans, j1, j2):
        return None  # two fields ("Home-page: …" / "Project-URL: …"): two attributes, not two values
    la, lb = a_low[i1:i2], b_low[j1:j2]
    if "".join(la) == "".join(lb):
        # The same letters spaced apart: one sentence, one copy broken by a PDF's letter spacing
        # ("re generates" / "regenerates", "iso verwritten" / "is overwritten"; realdocs6 k20).
        return None
    ca, cb = _content(la), _content(lb)
    if not ca and not cb:
        return None  # "a" → "the": no claim changed
    values_only = (
        all(_is_value(t) for t in ca + cb)
        and any(extract_numbers(t) for t in ca)
        and any(extract_numbers(t) for t in cb)
    )
    if values_only and i1 <= 2 and (any(t in _NAMING for t in a_low[:i1]) or not _content(a_low[:i1])):
        return None  # "Version 1.34 was released", "## 0.25.0 (…)": the value names which thing
    if values_only:
        wa, wb = _written(a, a_spans, i1, i2), _written(b, b_spans, j1, j2)
        pa, pb = _numbers_with_units(la, a_low, a_raw), _numbers_with_units(lb, b_low, b_raw)
        if [v for v, _, _ in pa] == [v for v, _, _ in pb] and wa == wb:
            return None
        same_unit = bool(pa and pb) and pa[-1][1] is not None and pa[-1][1] == pb[-1][1]
        # How alike the statements are around the value: a "Key: value" line with a long value
        # ("Requires-Python: >=2.7, !=3.0.*, !=3.1.*") is aligned however short its key.
        outside = len(a_low) - (i2 - i1) + len(b_low) - (j2 - j1)
        matched = sum(n for _, _, n in sm.get_matching_blocks())
        context = 2 * matched / outside if outside else 0.0
        has_context = len(_content(a_low[:i1] + a_low[i2:])) >= 1
        if not has_context or (context < ALIGNED and not (sim >= LOOSE and same_unit)):
            return None
        point = prefix + _attribute(a_raw, a_low, i1, i2, set(subject))
        versions = any(_VERSIONISH.match(t) for t in la + lb) or any(ch in "<>=~^" for ch in wa + wb)
        if versions:
            point = prefix + _version_attribute(_attribute(a_raw, a_low, i1, i2, set(subject), counts=False))
            return Conflict("version", (wa, wb), point, sim)
        if all(_YEAR.match(t) or t in _MONTHS for t in ca + cb) and len(pa) == len(pb) == 1:
            return Conflict("date", (wa, wb), point, sim)
        if len(pa) == 1 and len(pb) == 1 and i2 - i1 == 1 and j2 - j1 == 1:  # with its scale: "310 million"
            return Conflict("number", (pa[0][2], pb[0][2]), point, sim)
        return Conflict("number", (wa, wb), point, sim)
    if sim < ALIGNED:
        return None
    point = prefix + _attribute(a_raw, a_low, i1, i2)
    ra, rb = " ".join(a_raw[i1:i2]), " ".join(b_raw[j1:j2])
    if _word_forms(ra, rb):
        return None  # one word in two forms ("comma separate" / "comma separated"): an edit, not a claim
    if _names_own_subject(ra, title_a, title_b) and _names_own_subject(rb, title_b, title_a):
        # "Tcl is maintained … by the Tcl community" in Tcl's README, "Tk is maintained …" in Tk's: each
        # statement is about its own document's subject (realdocs4 h02).
        return None
    if _is_date(la) and _is_date(lb):
        return Conflict("date", (ra, rb), point, sim)
    if any(extract_numbers(t) for t in ca + cb):
        return None  # a value replaced together with other words: not the same attribute
    if set(ca) <= _UNITS and set(cb) <= _UNITS and i1 and j1 and a_low[i1 - 1] == b_low[j1 - 1] == "of":
        # "The number of days a reset link is valid for" / "The number of seconds …": two measures (Django's
        # PASSWORD_RESET_TIMEOUT_DAYS and PASSWORD_RESET_TIMEOUT), not two values; "3 days" / "3 weeks" and
        # "given in seconds" / "given in minutes" are.
        return None
    if _named(a_raw, i1, i2) and _named(b_raw, j1, j2):
        return Conflict("entity", (ra, rb), point, sim)
    if sim < WORDING_ALIGNED:
        return None  # other words in otherwise different sentences: most often two different things
    return Conflict("wording", (ra, rb), point, sim)


# Words that open a sentence capitalised without naming anything: "Behind the scenes, redis-py uses a
# connection pool" against "By default, redis-py uses a connection pool" (redis 3.5.3 and 5.0.7) is one
# statement reworded, not two names.
_OPENERS = frozenset(
    "a an the by behind in on at for with without within after before since during under over from to into "
    "when while if unless although though because as once then now here there this that these those it its "
    "also however instead otherwise so thus finally first next".split()
)


def _named(raw: list[str], i: int, j: int) -> bool:
    """Whether the replaced words raw[i:j] hold a capitalised word other than a sentence's opening one."""
    return any(t[:1].isupper() and not (k == 0 and t.lower() in _OPENERS) for k, t in enumerate(raw[i:j], i))


def _word_forms(a: str, b: str) -> bool:
    """Two forms of one lowercase word: one stem, and the longer one continues the shorter one less its
    last letter ("separate" / "separated"), not two words that stem alike ("executive" / "execution")
    nor a name ("William" / "Williams")."""
    if " " in a or " " in b or not (a.isalpha() and b.isalpha() and a.islower() and b.islower()):
        return False
    short, long_ = sorted((a, b), key=len)
    return tokenize(a) == tokenize(b) and long_.startswith(short[:-1])


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


def _subject(text: str) -> set[str]:
    """subject_words, with "typing_extensions" (a wheel's file name) read as "typing-extensions"."""
    return subject_words(text.replace("_", " "))


# A fact the answer-sentence scorer finds more likely than not to state the answer bears on the
# question, however differently it is worded. A constant, not the abstention threshold: at threshold 0
# ("answer whatever covers") every fact would bear, and every disagreement among the passages show.
def bearing(
    contradictions: list[Contradiction],
    facts: list[Fact],
    min_relevance: float,
    cited: Set[str] = frozenset(),
    question: str = "",
) -> list[Contradiction]:
    """The conflicts an answer reports: those where a fact the answer cites takes a side, or one that
    bears on the question (lexical relevance from `min_relevance`, or the answer-sentence scorer's
    probability from ans.BEARS_P, for a question worded unlike its answer). Two retrieved passages that
    disagree about something else ("How tall is Etna?" and two figures for a water plant's output)
    are not the user's concern; the contradictions node's trace still lists them. When the question
    names what the answer's cited documents are about ("… of pluggy 1.5.0?"), an uncited fact from a
    document about something the question does not name (urllib3's METADATA, worded alike) does not
    bear on it; a document whose title names nothing is not ruled out."""
    by_id = {f.id: f for f in facts}
    asked = _subject(question)
    names_the_answers_subject = any(_subject(f.title) & asked for f in facts if f.id in cited)

    def bears(fid: str) -> bool:
        f = by_id.get(fid)
        if fid in cited:
            return True
        if f is None:
            return False
        about = _subject(f.title)
        if names_the_answers_subject and about and not about & asked:
            return False  # about something else than the question and the answer name
        return ans.bears(f.relevance, f.answer_p, min_relevance)

    return [c for c in contradictions if any(bears(fid) for fid in c.facts)]
