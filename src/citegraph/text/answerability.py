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
from collections.abc import Callable, Iterable, Sequence, Set
from functools import lru_cache
from typing import Literal, Protocol

from citegraph.schemas import Fact
from citegraph.text.claims import Claim, extract_entities
from citegraph.text.dates import find_date, written_dates
from citegraph.text.releases import known_name
from citegraph.text.tokens import QUESTION_WORDS, STOPWORDS, Vocabulary, tokenize

AnswerType = (
    Literal["number", "date", "version", "code", "licence", "person", "place", "organisation", "yesno", "reason"] | None
)
# The kinds of value a fact must hold to answer at all: a sentence with no number cannot say "how many",
# one that names no licence "under which licence" ("This is a bundle of X.509 certificates…" did).
VALUE_TYPES = frozenset(["number", "date", "version", "code", "licence"])
# Names: a fact without a new name is only discounted (capitalisation finds most names, not all).
NAME_TYPES = frozenset(["person", "place", "organisation"])

_REASON_Q = re.compile(
    r"^\s*(why|how (do|does|did|can|could|should|would|is|are|was|were|to)|in what way|explain)\b|"
    r"\bwhat (causes|caused|happens|happened)\b|\bfor what (reason|purpose)\b|\bwhat is the (reason|purpose)\b",
    re.IGNORECASE,
)
_VERSION_Q = re.compile(
    r"\b(which|what) (?!kind\b|type\b|sort\b)([\w-]+ ){0,3}(versions?|release)\b(?! (numbering|scheme|policy))|"
    r"\bversions? of python\b|\brequires?[- ]python\b|\bminimum ([\w-]+ ){0,2}version\b|\bsupported python\b|"
    r"\bpython versions?\b(?! (numbering|scheme|policy))",
    re.IGNORECASE,
)
# Which licence something is under ("Under what licence is X distributed?", "Which license does tomli
# use?", "What is the license of requests?"), not a licence key, server or text.
_LICENCE_Q = re.compile(
    r"\bunder (what|which) ([\w-]+ ){0,2}licen[cs]es?\b|\blicen[cs]ed under (what|which)\b|"
    r"\b(what|which) ([\w-]+ ){0,2}licen[cs]es? (is|are|does|do|did|was|were|applies|apply|covers|governs|has)\b|"
    r"\bwhat is the licen[cs]e (of|for)\b",
    re.IGNORECASE,
)
_CODE_Q = re.compile(
    r"\b(which|what) ([\w-]+ ){0,3}(option|flag|switch|command|subcommand|environment variable|variable|function|"
    r"method|keyword|argument|error code|directive|file ?name|extension|exception|class|module)s?\b",
    re.IGNORECASE,
)
_DATE_Q = re.compile(
    r"^\s*(when|since when|until when)\b|\b(what|which|in what|in which) (year|date|decade|century|month|day)\b|"
    r"\bwhen (was|were|did|is|does) \w+",
    re.IGNORECASE,
)
# A log's level is a name (notice, warning, DEBUG), as syslog's facility.level pair is, not a number.
_NUMBER_Q = re.compile(
    r"\bhow (many|much|long|old|far|large|big|tall|high|often|fast|deep|wide|heavy|small)\b|"
    r"\bwhat ([\w-]+ ){0,2}(percentage|percent|number|amount|proportion|share|fraction|port|ratio|rate)\b|"
    r"\b(what|which) ((is|was|are) )?(the )?(?!([\w-]+ )*(first|second|third|top|highest|lowest|next|main) )"
    r"([\w-]+ ){0,3}(size|port|(?<!log )(?<!logging )(?<!severity )(?<!facility and )level|number|length|timeout|"
    r"limit|ratio|rate|count|"
    r"uid|gid|population|cost|price|score|exit status|exit code|percentage|amount)\b|\bexit (status|code)\b|"
    r"\bnumeric\b",
    re.IGNORECASE,
)
_PERSON_Q = re.compile(
    r"^\s*(who|whom)\b|\bwhose\b|\b(which|what) (person|people|author|maintainer|developer|president|"
    r"king|queen|writer|scientist|engineer)s?\b|\bwho (wrote|created|maintains|developed|invented|founded)\b",
    re.IGNORECASE,
)
_PLACE_Q = re.compile(
    r"^\s*where\b|\b(which|what) (city|cities|country|countries|state|states|continent|region|town|island|"
    r"river)\b|\bcapital (city )?of\b",
    re.IGNORECASE,
)
_ORG_Q = re.compile(
    r"\b(which|what) (company|companies|organi[sz]ations?|university|party|team|agency|institution|"
    r"foundation|publisher|band)\b",
    re.IGNORECASE,
)
_YESNO_Q = re.compile(
    r"^\s*(is|are|does|do|did|can|could|will|would|was|were|has|have|had|should|must)\b", re.IGNORECASE
)
_QUESTION_WORDS = frozenset(tokenize(" ".join(QUESTION_WORDS) + " name type kind"))
TYPE_DISCOUNT = 0.75


# A leading clause that sets a condition ("When bc is started with -l, what is the scale?",
# "If I run tar without -f, which variable…"): the question proper follows the comma.
_CONDITION = re.compile(
    # Not a question that opens with its preposition: "On which CPU platform does libffi warn that, when
    # you switch ABIs, …" is the question, not a condition before it.
    r"^\s*(when|if|once|after|before|while|with|without|in|for|on)\b(?!\s+(what|which|whose|how)\b)[^,?]*,\s*"
    r"(?=(what|which|who|whom|whose|where|when|how|why|is|are|does|do|did|can|will|should)\b)",
    re.IGNORECASE,
)


# A date asked in so many words ("When was the release that…", "On what date was the release…"): a
# date, whatever versions or releases the question mentions on the way.
_DATE_ASKED = re.compile(
    r"^\s*(when|since when|until when)\b|\b(what|which|in what|in which|on what|on which) (year|date|day|month)\b",
    re.IGNORECASE,
)


# Where one sentence of a question ends and the next begins.
_SENTENCE_END = re.compile(r"(?<=[.?!:;])\s+(?=[A-Z])")


def _asked(question: str) -> str:
    """The sentence that asks: the last of several ("The mechanize FAQ lists the Python versions it runs on.
    When was the release that first supported the newest of them?")."""
    parts = [p for p in _SENTENCE_END.split(question.strip()) if p.strip()]
    return parts[-1] if len(parts) > 1 and parts[-1].rstrip().endswith("?") else question


def answer_type(question: str) -> AnswerType:
    """The kind of value the question asks for, or None (a definition, a description)."""
    if _DATE_ASKED.search(_CONDITION.sub("", _asked(question), count=1)):
        return "date"
    question = _CONDITION.sub("", question, count=1)
    for kind, pattern in (
        ("reason", _REASON_Q),
        ("licence", _LICENCE_Q),
        ("version", _VERSION_Q),
        ("code", _CODE_Q),
        ("date", _DATE_Q),
        ("number", _NUMBER_Q),
        ("person", _PERSON_Q),
        ("place", _PLACE_Q),
        ("organisation", _ORG_Q),
        ("yesno", _YESNO_Q),
    ):
        if pattern.search(question):
            return kind  # type: ignore[return-value]
    return None


_SPELLED = (
    "one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen "
    "eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million billion"
)
_NUMBER_WORD = re.compile(rf"\b({'|'.join(_SPELLED.split())})\b", re.IGNORECASE)
_PARTITIVE_AFTER = re.compile(r"\s+of\b", re.IGNORECASE)
_PRONOUN_ONE_BEFORE = re.compile(r"\b(the|this|that|no|any|each|every|which|another|some)\s+$", re.IGNORECASE)
_NUM = re.compile(r"(?<![\w.])[-−]?\d{1,3}(?:,\d{3})+(?:\.\d+)?%?|(?<![\w.])[-−]?\d+(?:\.\d+)?%?(?![\w.]*\d)")
_RELEASE_BEFORE = re.compile(r"\b(version|release|v)\s*$", re.IGNORECASE)
# A unit written onto its number: "8GB", "64k", "30s".
_GLUED_UNIT = re.compile(r"(?:[KMGTP]i?B|[kKMGT]|ms|s|h|px|pt)\b")
# "310 million litres": the value is "310 million"; "310" alone would be a wrong answer.
_SCALE_AFTER = re.compile(r"\s+(hundred|thousand|million|billion|trillion)\b", re.IGNORECASE)
_YEAR = re.compile(r"\b(1[5-9]\d\d|20\d\d)s?\b")
_MONTH = re.compile(
    r"\b(january|february|march|april|june|july|august|september|october|november|december)\b", re.IGNORECASE
)
# A release, a specifier or a series: "1.16.0", ">=3.7", "3.*", "libevent 2.x" (a major version).
_VERSION = re.compile(
    # A requirement glued to its name keeps its operator ("python-dateutil>=2.7.0" is ">=2.7.0", not "=2.7.0").
    r"(?<=[\w)\]])(?:>=|<=|==|!=|~=)\s?\d+(?:\.(?:\d+|\*|x\b))*\+?(?:[ab]|rc|\.post|\.dev)?\d*|"
    r"(?<![\w/.-])(?:(?:[<>=!~^]=?\s?|v)?\d+(?:\.(?:\d+|\*|x\b))+\+?(?:[ab]|rc|\.post|\.dev)?\d*|[<>=!~^]=?\s?\d+\+?|\d+\+)"
)
_CODE = re.compile(
    r"(?<![\w-])--?[A-Za-z0-9][\w-]*(?:=\S+)?|\bE\d{4}\b|\b[A-Z][A-Z0-9]*_[A-Z0-9_]+\b|\b\w+\(\)|"
    r"(?<![\w/])(?:~|\.{1,2})?(?:/[\w.~-]*\w)+/?|\b[a-z_][\w-]*\.(?:[a-z]{1,4}|[a-z_]\w+)\b|`[^`'\n]+[`']|"
    r"\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]+)+\b"  # CamelCase identifiers: TopLevelNotFound
)
# A snake_case name as a whole word ("clear_untrusted_proxy_headers"; not os.path_join's tail).
_SNAKE = re.compile(r"(?<![\w.-])_?[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w-])")
_ABBREVIATION = re.compile(r"(?:[a-z]\.){1,3}[a-z]\.?", re.IGNORECASE)
# An environment variable or a constant asked for by name: a word in capitals ("TAPE").
_CAPS = re.compile(r"\b[A-Z][A-Z0-9_]{2,}\b")
_VARIABLE_Q = re.compile(r"\b(environment )?variables?\b|\bconstant\b", re.IGNORECASE)


_VERSION_OF = re.compile(r"\b(\w[\w.+-]*) versions?\b|\bversions? of (\w[\w.+-]*)", re.IGNORECASE)
_NOT_A_PRODUCT = frozenset(
    "which what minimum maximum min max supported latest oldest newest release first last the a an this that its "
    "their required recommended current default earliest lowest highest major minor exact".split()
)


def version_of(question: str) -> str | None:
    """The product whose version the question asks for ("Which Python version…" → "Python"), if named."""
    for m in _VERSION_OF.finditer(question):
        word = m.group(1) or m.group(2)
        if word and word.lower() not in _NOT_A_PRODUCT and word.lower() not in STOPWORDS:
            return word
    return None


def given_products(question: str, product: str | None) -> list[str]:
    """The names whose release the question gives rather than asks for: "Python" in "Which arrow release
    first supported Python 3.12?" (released_names). A version a passage writes after one of them is that
    name's (Python 3.11), not the release asked for; the release line the passage's entry sits under is."""
    asked = {w.lower() for w in product_words(question, product)} if product else set()
    # A major release alone gives one too: "Python 2" in "Which Setuptools release dropped Python 2?" (a
    # passage's "Python 2.7" is Python's).
    majors = (m.group(1) for m in _MAJOR_GIVEN.finditer(question) if m.group(1).lower() not in _RELEASE_NOUNS)
    names = dict.fromkeys([*released_names(question), *majors])
    return [w for w in names if w.lower() not in asked | _NOT_A_PRODUCT | STOPWORDS]


_MAJOR_GIVEN = re.compile(r"\b([A-Z][\w+-]*)\s+v?\d+\b(?![.,]\d)")


def _just_before(names: list[str]) -> re.Pattern[str]:
    """Matches the text before a value when one of `names` ends at most two words before it ("Python
    3.8", "Requires-Python: >=3.8", "Python versions 3.7 and")."""
    return re.compile(rf"\b(?:{'|'.join(map(re.escape, names))})\W{{0,3}}(\w+\W{{1,2}}){{0,2}}$", re.IGNORECASE)


def product_words(question: str, product: str) -> list[str]:
    """The words a version of `product` (version_of) may follow in a passage: the product, and a name
    written just before it ("Linux kernel version": "Linux v5.17" states one as well as "kernel 5.17";
    "GNU tar version": "GNU tar 1.28")."""
    m = re.search(rf"\b([A-Z][\w+-]*)\s+{re.escape(product)}\s+versions?\b", question)
    before = m.group(1) if m and m.group(1).lower() not in _NOT_A_PRODUCT | STOPWORDS else None
    return [product] + ([before] if before else [])


# A licence by its name ("Mozilla Public License 2.0", "the Apache License, Version 2.0", "BSD
# licensed") or its short id ("MPL-2.0", "GPLv3+", "BSD-3-Clause"), and "public domain".
_LICENCE_NAME = re.compile(
    r"\b((GNU )?((Lesser|Library|Affero) )?General Public|Mozilla Public|Apache( Software)?|Eclipse Public|"
    r"Python Software Foundation|Zope Public|Artistic|Boost Software|Creative Commons|MIT|BSD|ISC)"
    r"[\w .-]{0,12}?\blicen[cs]e[sd]?\b(,? version \d[\d.]*)?( v?\d[\d.]*)?|\bpublic domain\b",
    re.IGNORECASE,
)
# A licence's name that a version number follows ("LGPL 2.1", "Apache 2.0", "license version 2").
_LICENCE_NAMES = r"(A|L)?GPL|MPL|EPL|CDDL|Apache|Artistic"
_LICENCE_WORD = re.compile(rf"{_LICENCE_NAMES}|licen[cs]es?", re.IGNORECASE)
_LICENCE_BEFORE = re.compile(rf"\b({_LICENCE_NAMES}|CC-BY(-SA)?|licen[cs]e(,? version)?)[ -]?v?$", re.IGNORECASE)
_LICENCE_ID = re.compile(
    r"\b(A|L)?GPL(-?v?\d[\d.]*)?(-only|-or-later|\+)?(?![\w-])|\b(MPL|EPL|CDDL)( ?-?\d[\d.]*)?(?![\w-])|"
    r"\bApache-\d[\d.]*|\b(MIT|ISC|BSD(-\d-Clause)?|PSF(-\d[\d.]*)?|CC0(-\d[\d.]*)?|CC-BY[\w.-]*|Unlicense|Zlib)"
    r"(?![\w-])"
)
_MAN_SECTION = re.compile(r"(?<=\w)\(\d[a-z]*\)")


# A section's number at the head of its heading ("### 2.6. python-support (removed)", "#### 3.5.1.
# Interpreter Name") labels it: no count, no release. A release heading has no dot before its text
# ("## 2.6.0 (2024-01-01)", "### v1.1.35: Feb 16 2022"), and a number that ends a hard-wrapped line's
# sentence ("default size is\n1000. Set it…") is no heading.
_SECTION_LABEL = re.compile(r"^\s*#+\s*(\d+(?:\.\d+)*)\.\s+(?=[A-Za-z(])", re.MULTILINE)


def answer_values(kind: AnswerType, text: str, question: str, own: str = "") -> list[str]:
    """The values of the asked kind that `text` holds beyond those the question names, in order. `own`
    names the text's document (its title and file name): a release line of a document named for the
    product whose version is asked ("## 2.0.0 (2017-10-09)" in async-timeout's CHANGES, for "which
    async-timeout version…") states that product's version without naming it."""
    if kind is None or kind in ("yesno", "reason"):
        return []
    q = question.lower()
    # A section label is blanked out: no value is read from it, and the other values keep their offsets.
    text = _SECTION_LABEL.sub(lambda m: m.group(0).replace(m.group(1), " " * len(m.group(1)), 1), text)

    def new(found: list[str]) -> list[str]:
        return list(dict.fromkeys(v for v in found if v.strip() and v.strip().lower() not in q))

    if kind == "number":
        # A release number counts nothing: "version 5.44 of the file command" is no answer to "how many bytes".
        counts, scales = [], []
        for m in _NUM.finditer(text):
            if _RELEASE_BEFORE.search(text[max(0, m.start() - 12) : m.start()]):
                continue
            if m.start() and _MAN_SECTION.match(text, m.start() - 1):
                continue  # "libxslt(3)": a manual's section, not a count
            scale = _SCALE_AFTER.match(text, m.end())
            unit = _GLUED_UNIT.match(text, m.end())
            # A unit written onto its number is part of the value: "at least 8GB of RAM" says 8GB, not 8.
            value = m.group(0) + (unit.group(0) if unit else "")
            counts.append(f"{value} {scale.group(1)}" if scale else value)
            if scale:
                scales.append(scale.start(1))
        # A scale word taken into a value above is not a value of its own ("twelve" after "1999" is); a
        # number word that picks out of a group ("one of the most downloaded packages", "If only one of
        # the values is set") or stands for a thing ("the one", "no one") counts nothing.
        words = [
            m.group(0)
            for m in _NUMBER_WORD.finditer(text)
            if m.start() not in scales
            and not _PARTITIVE_AFTER.match(text, m.end())
            and not (
                m.group(0).lower() == "one" and _PRONOUN_ONE_BEFORE.search(text[max(0, m.start() - 8) : m.start()])
            )
        ]
        return new(counts + words)
    if kind == "date":
        # A date written out is one value ("June 2, 2022", not "June" and "2022"); then lone years and months.
        spans = written_dates(text)
        alone = [
            m for m in [*_YEAR.finditer(text), *_MONTH.finditer(text)] if not any(a <= m.start() < b for a, b in spans)
        ]
        return new([text[a:b] for a, b in spans] + [m.group(0) for m in alone])
    if kind == "version":
        dependency = _DEPENDENCY.match(text)
        if dependency and not set(tokenize(dependency.group(1))) <= set(tokenize(question)):
            # "Requires-Dist: python-dateutil>=2.7.0" states python-dateutil's versions: no answer to
            # "Which Python versions does arrow declare?" (realdocs8 o24 led with it).
            return []
        versions = list(_VERSION.finditer(text))
        product = version_of(question)
        given = given_products(question, product)
        if not (product and _LICENCE_WORD.fullmatch(product)):
            # "Transition from LGPL 2.1 license to Apache 2.0": the licences' versions, not a release's
            # (realdocs5 i16 led with "2.1"); asked "which GPL version", they are the answer.
            versions = [m for m in versions if not _LICENCE_BEFORE.search(text[max(0, m.start() - 24) : m.start()])]
        if given:  # "Added official support for Python 3.11 and 3.12": Python's, for "which arrow release…"
            of_given = _just_before(given)
            versions = [m for m in versions if not of_given.search(text[max(0, m.start() - 40) : m.start()])]
        if product:  # "which Python version": a version that follows "Python" (or "Requires-Python:")
            near = _just_before(product_words(question, product))
            release = versions[:1] if _OWN_RELEASE.match(text) and _names_product(own, product) else []
            versions = [m for m in versions if near.search(text[max(0, m.start() - 40) : m.start()]) or m in release]
        return new([m.group(0).strip() for m in versions])
    if kind == "licence":
        # A value the question names is a whole word of it ("MIT" is not named by "submit").
        found = [m.group(0).strip(" .,") for m in [*_LICENCE_NAME.finditer(text), *_LICENCE_ID.finditer(text)]]
        return list(dict.fromkeys(v for v in found if not re.search(rf"(?<!\w){re.escape(v.lower())}(?!\w)", q)))
    if kind == "code":
        code = [m.group(0).strip("`'") for m in _CODE.finditer(text)]
        if _VARIABLE_Q.search(question):
            code += [m.group(0) for m in _CAPS.finditer(text)]
        return new(code)
    q_ents = {e.lower() for e in extract_entities(question)}
    names = [e for e in extract_entities(text) if e.lower() not in q_ents]
    if kind == "place":  # "where" in a manual asks for a path as often as for a town
        names += [m.group(0) for m in _CODE.finditer(text) if "/" in m.group(0)]
    return new(names)


# A question about what happens when the user leaves something out ("if I don't pass a size", "without
# saying how much", "when TMPDIR is not set") asks for a default, and manuals state defaults in so many
# words ("default 10", "The default is to retry 20 times", "defaults to -1").
_DEFAULT_Q = re.compile(
    r"\bdefaults?\b|\bout of the box\b|\bunless (i|you|we|one)\b|\bomit(s|ted|ting)?\b|"
    r"\bwithout (giving|passing|specifying|setting|saying|choosing|picking|providing|naming|configuring|"
    r"telling|any|an?)\b|"
    r"(\b(if|when|and|but)|,) ((i|you|we|one) )?(don't|do not|didn't|did not|never) (give|pass|specify|set|say|"
    r"configure|choose|pick|provide|use|add|tell|name|change)\b|"
    r"\band not (giving|passing|specifying|setting|saying|configuring|choosing|picking|providing|naming|telling)\b|"
    r"\bleave (it|that|this|them|the \w+) (alone|unset|out|as it is)\b|"
    r"\b(leave|leaving|left) out (-|the [\w-]+ (option|argument|flag|setting|parameter|value)s?\b)|"
    r"\b(isn't|is not|aren't|are not|wasn't|was not) (set|given|specified|configured)\b|"
    r"\b(no|neither) (\w+ ){0,3}(option|options|argument|flag|value|setting|template|size|priority|level)\b",
    re.IGNORECASE,
)
_DEFAULT_TERM = tokenize("default")[0]
_DEFAULT_EXTRA = re.compile(r"\bdefault extras?\b|\bextras? (called |named )?[\"'“]?default\b", re.IGNORECASE)
# A question about which versions something needs or supports ("Which Python versions does Jinja2
# support?", "the oldest Python version PyJWT can be installed on") is answered by a requirement, and
# package metadata states requirements in so many words ("Requires-Python: >=3.7", "Requires-Dist:"):
# the question's words share nothing with that line but "Python". Asked in the metadata's own word ("What
# Python version does attrs 23.2.0 require?"), it is looked for the same way (answer/subqueries.py).
# Asked without the word "version": "the oldest Python that cloudpickle can be installed on", "the oldest
# cryptography release paramiko works with", "how new must numpy be?".
_VERSIONS_Q = re.compile(r"\bversions?\b|\b(oldest|earliest)\b|\bhow (new|recent)\b", re.IGNORECASE)
_NEEDS_Q = re.compile(
    r"\b(needs?|needed|supports?|supported|compatible|install(ed|able)?|depends?|dependency|minimum|lowest|"
    r"at least|requires?|required|accepts?|accepted|works? (with|on)|runs? on|must|ha(ve|s) to)\b",
    re.IGNORECASE,
)
_REQUIRES_TERM = tokenize("requires")[0]
_DIST_KEY = set(tokenize("Requires-Dist"))


def asks_default(question: str) -> bool:
    """Whether the question asks what happens when nothing is said: the default. A package's "default"
    extra is a name ("If I install networkx with its default extras, how new must numpy be?")."""
    return bool(_DEFAULT_Q.search(_DEFAULT_EXTRA.sub(" ", question)))


# How a manual says what holds when nothing is said: "(default: 512)", "defaults to main", "If not
# specified, …", "unless -s is given", "Initially …".
_STATES_DEFAULT = re.compile(
    r"\bdefault|\bunless\b|\botherwise\b|\bomitted\b|\bimplied\b|\bunset\b|\bout of the box\b|\binitial(ly)?\b|"
    r"\b(if|when) (it is |they are |this is )?(not|no|none|omitted|unset|absent|empty|missing)\b|"
    r"\bnot (specified|given|set|supplied|provided|present|passed)\b",
    re.IGNORECASE,
)


def asks_for_default(question: str) -> bool:
    """Whether the question asks for the default itself: its asking sentence asks what holds when nothing
    is said, and not why ("llvm-ar stores zero timestamps by default. What do I add to keep the real
    ones?" asks for an option)."""
    return asks_default(_asked(question)) and not asks_why(question)


def states_default(text: str) -> bool:
    """Whether a sentence says what holds when nothing is said."""
    return bool(_STATES_DEFAULT.search(text))


def other_setting(question: str, text: str) -> str | None:
    """A setting the sentence names when the question names another and the sentence not that one:
    "If trusted_proxy is set, the default is x-forwarded-proto" states trusted_proxy's default, not
    clear_untrusted_proxy_headers' (realdocs4 g01). A sentence that names no setting ("Default: False"
    under the setting's heading) is not refused here."""
    asked = {m.group(0).lower() for m in _SNAKE.finditer(question)}
    if not asked:
        return None
    named = [m.group(0) for m in _SNAKE.finditer(text)]
    if not named or asked & {n.lower() for n in named}:
        return None
    return named[0]


def asks_requirement(question: str) -> bool:
    """Whether the question asks which versions something needs or supports (not why: "Why does a
    --version option have to be marked as eager?")."""
    if re.match(r"\W*why\b", question, re.IGNORECASE):
        return False
    return bool(_VERSIONS_Q.search(question) and _NEEDS_Q.search(question))


def question_terms(question: str) -> list[str]:
    """The question's content terms (BM25 tokens, stemmed), without question words; "default" too
    when the question asks for one in other words. (Not "requires" for a requirement: every answer
    sentence without that word would lose coverage; the sub-query finds the requirement.)"""
    terms = list(dict.fromkeys(t for t in tokenize(question) if t not in _QUESTION_WORDS))
    if _DEFAULT_TERM not in terms and asks_default(question):
        terms.append(_DEFAULT_TERM)
    return terms


def coverage(terms: list[str], idf: dict[str, float], text: str) -> float:
    """Share of the question's idf mass whose terms occur in `text`."""
    if not terms:
        return 0.0
    present = set(tokenize(text))
    total = sum(idf.get(t, 1.0) for t in terms)
    return sum(idf.get(t, 1.0) for t in terms if t in present) / total if total > 0 else 0.0


def relevance(cosine: float, cov: float) -> float:
    return max(0.0, min(1.0, 0.5 * max(cosine, 0.0) + 0.5 * cov))


# A question that asks why (not how something works or is done) is answered by a sentence that gives a
# reason: its cause, purpose or consequence in so many words.
_WHY_Q = re.compile(
    r"^\s*why\b|\bfor what (reason|purpose)\b|\bwhat is the (reason|purpose)\b|\bwhat (causes|caused)\b",
    re.IGNORECASE,
)
_REASON = re.compile(
    r"\b(because|so that|in order (to|that)|due to|owing to|the reason|reasons?\b|purpose|otherwise|"
    r"hence|therefore|thus|is why|which means|lest|and so\b(?! on| forth)|"
    r"to (avoid|prevent|ensure|allow|enable|make sure|keep|reduce|protect|guarantee|stop)|"
    r"(caused|required|needed|motivated) by|results? in|leads? to|causing|"
    r"(which|that|it|this) (is|are|was|were) (required|needed|necessary|essential) (to|for)\b|"
    r"(?<!such )as (trying|using|doing|having|making|running|keeping|letting|allowing)\b|"
    r"(created|designed|intended|meant|used|built|made|established|formed|introduced|added|set up) to \w+|"
    r"as (it|they|this|these|there|we|you|the \w+ (is|are|was|were|has|have|can|cannot|may|might|would|will))\b|"
    r"since (it|they|this|these|there|we|you|the|a|an|some|most|many|all|no|not)\b|"
    r"for (security|compatibility|performance|historical|portability|efficiency|safety|legal|licensing) reasons?)",
    re.IGNORECASE,
)


def asks_why(question: str) -> bool:
    return bool(_WHY_Q.search(_CONDITION.sub("", question, count=1)))


def has_answer_type(kind: AnswerType, claim: Claim, question: str) -> bool:
    """Whether a claim holds a value of the kind asked, beyond the values the question itself names;
    for a "why" question, whether it gives a reason."""
    if kind == "reason" and asks_why(question):
        return bool(_REASON.search(claim.text))
    if kind is None or kind in ("yesno", "reason"):
        return True
    return bool(answer_values(kind, claim.text, question))


# Quoted phrases: double or typographic quotes, or single quotes that open after a space (not the
# apostrophes of "gzip's … zlib's").
# "What is the latest release of libxslt?": the greatest version (or the latest date) answers, not the
# release whose line matches the question best (a news page lists every release; extraction quoted
# "Candidate release 1 of libxslt 1.1.34", and for the latest release's date an entry of 2001).
_LATEST = re.compile(r"\b(latest|newest|most recent|current|last)\b", re.IGNORECASE)


_UNIT_AFTER = r"\s?(%|[KMGT]i?B\b|bytes?\b|[km]?m\b|ms\b|px\b|pt\b|s\b|x\b|seconds?\b|minutes?\b)"


def latest_kind(question: str) -> AnswerType:
    """ "version" or "date" when the question asks for the latest one (its greatest value answers it)."""
    if not _LATEST.search(question):
        return None
    kind = answer_type(question)
    if kind is None and re.search(r"\b(releases?|versions?)\b", question, re.IGNORECASE):
        kind = "version"  # "What is the latest Valgrind release?"
    return kind if kind in ("version", "date") else None


def value_order(kind: AnswerType, text: str, question: str) -> tuple[int, ...]:
    """How late the greatest value of the kind in `text` is, as something to sort by: a version's numbers
    ("v1.1.35" → (1, 1, 35)), a date's day; () when it holds none."""
    if kind == "version":
        # A number with a unit is a size or a time, not a release ("68.4 KB, Uncompressed").
        values = [v for v in answer_values(kind, text, question) if not re.search(re.escape(v) + _UNIT_AFTER, text)]
        keys = [tuple(int(n) for n in re.findall(r"\d+", v)[:4]) for v in values]
        return max((k for k in keys if k), default=())
    if kind == "date":
        d = find_date(text)
        return (d.toordinal(),) if d else ()
    return ()


# A changelog states a release's number (or date) once, in the line its entries sit under.
RELEASE_LINE = re.compile(r"^\W{0,4}(#+ |\* |version\b|release\b|v?\d+(\.\d+)+\b|changes in\b|noteworthy)", re.I)


_RELEASE_WORD = re.compile(r"\b(releases?d?|versions?|changes)\b", re.IGNORECASE)
_LEADING_RELEASE = re.compile(r"^[#*=~\s-]*v?\d+(\.\d+)+\b")
_NAMED_RELEASE = re.compile(r"^[#*=~\s-]*([A-Za-z][\w+-]*)\s+(v?\d+(?:\.\d+)+)\b")


def release_value(kind: AnswerType, line: str, question: str) -> tuple[int, ...]:
    """The release a line names, when it reads as a release's line: short, shaped like a heading or an
    entry, and either opening with the number ("1.13.4 — June 2, 2022", "### v1.1.35: Feb 16 2022") or
    saying "release"/"version" or giving a date ("Version 4.3 (19 Jan 2020)"). A bullet that merely names
    a number ("* zgrep now ports to POSIX 1003.1-2001 hosts") is none."""
    line = line.strip()
    if len(line) > 100 or not RELEASE_LINE.match(line):
        return ()
    value = value_order(kind, line, question)
    if value and (_LEADING_RELEASE.match(line) or _RELEASE_WORD.search(line) or find_date(line)):
        return value
    return ()


def _release_key(version: str) -> tuple[int, ...]:
    parts = [int(x) for x in re.findall(r"\d+", version)]
    while len(parts) > 1 and parts[-1] == 0:
        parts.pop()
    return tuple(parts)


def another_release(question: str, text: str, heading: str | None, own: str) -> bool:
    """Whether a fact belongs to a release of the document's product other than the one the question
    names: "## 18.0.0 (April 30, 2018)", or an entry under it, does not say when "glom 23.5.0" came out
    (a changelog that stops before 23.5.0 was quoted for it). The question names a release by its number
    after the product's name ("glom 23.5.0"; `own` is what the document is named for): "Python 3.12" in a
    question about arrow names no arrow release; "the transitions 0.8 series" names every 0.8.x."""
    own = own.lower()
    asked = {
        _release(m.group(2), bool(m.group(3)))
        for m in re.finditer(r"([A-Za-z][\w+-]*)\s+v?(\d+(?:\.\d+)+)\b(\.[xX*]|\s+(?:series|line|branch)\b)?", question)
        if len(m.group(1)) > 1 and _names_own(m.group(1), own)
    }
    if not asked:
        return False
    for line in (heading or "", text):
        s = line.strip()
        m = _LEADING_RELEASE.match(s)
        number = m.group(0) if m else None
        # The product's name may come first: "## Jansi 2.0.1, released 2020-10-28".
        # Or the word release: "Release 0.2.0 (Jul 20, 2016)".
        if number is None and (named := _NAMED_RELEASE.match(s)) and _names_own_release(named.group(1), own):
            number = named.group(2)
        if number and len(s) <= 100:
            return not _among(_release(number, False), asked)
    # A sentence about the product's other releases only: "sqlparse 0.2.x supports Python 2.7 and Python
    # >= 3.3" says nothing of sqlparse 0.5.0 (realdocs3 f32).
    releases = [m.group(2) for m in _OWN_NAMED_RELEASE.finditer(text) if _names_own(m.group(1), own)]
    return bool(releases) and not any(_among(_release(v, v[-1] in "xX*"), asked) for v in releases)


# A name and the release number after it, a series too ("sqlparse 0.2.x").
_OWN_NAMED_RELEASE = re.compile(r"(?<![\w.-])([A-Za-z][\w+-]*)\s+v?(\d+(?:\.\d+)*\.(?:\d+|[xX*]))(?![\w.-]*\d)")


def _release(version: str, series: bool) -> tuple[tuple[int, ...], bool]:
    """A release as its number's key, and whether it stands for a series ("0.2.x", "the 0.8 series")."""
    return _release_key(version), series


def _among(release: tuple[tuple[int, ...], bool], asked: set[tuple[tuple[int, ...], bool]]) -> bool:
    """Whether a release is one of those asked: the same number, or one a series holds ("0.8.11" of "the 0.8
    series", "0.5.0" of "0.5.x")."""
    key, series = release
    for other, other_series in asked:
        if key == other or (other_series and key[: len(other)] == other) or (series and other[: len(key)] == key):
            return True
    return False


def _names_own(word: str, own: str) -> bool:
    """Whether `word` is, whole, among the (lowercased) names the document goes by; a file name may
    give it with its release ("sqlparse-0.5.0.CHANGELOG")."""
    return re.search(rf"(?<![\w-]){re.escape(word.lower())}(?![\w]|-(?!\d))", own) is not None


def _names_own_release(word: str, own: str) -> bool:
    """Whether a word before a release number names the document's product, or is the word release."""
    return word.lower() in ("release", "version") or _names_own(word, own)


def release_order(kind: AnswerType, text: str, heading: str | None, question: str) -> tuple[int, ...]:
    """How late the release a fact belongs to is: its heading's (a changelog line may name other
    products' versions), else its own when it is a release's line or says "release"/"version"."""
    if heading:
        return release_value(kind, heading, question)
    if release_value(kind, text, question) or _RELEASE_WORD.search(text):
        return value_order(kind, text, question)
    return ()


def _release_values(kind: AnswerType, text: str, question: str) -> list[tuple[int, ...]]:
    return [v for v in (release_value(kind, ln, question) for ln in text.splitlines()) if v]


def release_lines(kind: AnswerType, text: str, question: str) -> int:
    """How many lines of a passage name a release ("1.13.3 — April 23, 2022"; not "65.9 KB, …")."""
    return len(_release_values(kind, text, question))


def latest_release_line(kind: AnswerType, text: str, question: str) -> tuple[int, ...]:
    """How late the latest release a passage's release lines name is ("### v1.1.35: Feb 16 2022",
    "* Noteworthy changes in release 1.12 (2022-04-07)"); () when it has none."""
    return max(_release_values(kind, text, question), default=())


# A dependency of package metadata and the distribution it names ("Requires-Dist: types-python-dateutil>=2.8").
_DEPENDENCY = re.compile(r"^\W{0,3}Requires-Dist:\s*([A-Za-z0-9][\w.-]*)", re.IGNORECASE)
# A line that opens with a release number ("## 2.0.0 (2017-10-09)", "Version 2.5.4 - April 21, 2022"),
# not a changelog entry that mentions one ("* Update the syscall table for Linux v5.17").
_OWN_RELEASE = re.compile(r"^\W{0,4}(?:version\s+|release\s+)?v?\d+(?:\.\d+)+\b", re.IGNORECASE)


def _names_product(own: str, product: str) -> bool:
    """Whether a document's title or file name (`own`) names the product: all of its words, a package's
    soname number aside ("libseccomp2.changelog" names libseccomp)."""
    words, named = set(tokenize(product)), set(tokenize(own))
    named |= {w.rstrip("0123456789") for w in named}
    return bool(words) and words <= named


def the_value(kind: AnswerType, text: str, question: str, own: str = "") -> str | None:
    """The one value of the asked kind a text gives for the question: the only one it holds, or the
    only one next to a word of the question ("178 instances" for "how many instances", not "three
    classes"). None when that is not plain: a guess would be a wrong answer stated with a citation."""
    values = answer_values(kind, text, question, own)
    if len(values) <= 1:
        return values[0] if values else None
    terms = set(question_terms(question))
    words = [w.strip(",.;:()`'\"") for w in re.findall(r"\S+", text)]
    stems = [set(tokenize(w)) for w in words]
    distance: dict[str, int] = {}
    for v in values:
        first = v.split()[0].strip(",.;:()`'\"")
        for i, w in enumerate(words):
            if w == first:
                near = [abs(j - i) for j in range(max(0, i - 3), min(len(words), i + 4)) if j != i and stems[j] & terms]
                if near:
                    distance[v] = min(distance.get(v, 9), min(near))
    if not distance:
        return None
    best = min(distance.values())
    closest = [v for v, d in distance.items() if d == best]
    return closest[0] if len(closest) == 1 else None


# A question in two sentences whose last refers back to a thing the first only describes ("HTTPX's README
# credits another library for its API layout. Under which licence is that library released?").
_BACK_REFERENCE = re.compile(r"\b(?:that|this|these|those)\s+(?:other\s+)?((?:[\w-]+\s+){0,2}[\w-]+)", re.IGNORECASE)
# What names a thing right after the words that bring it in: "an option -9", "a setting called workers",
# "another library, Requests,", "a variable HTTPS_PROXY", "a `Table` class".
_NAMED_AFTER = re.compile(r"^,?\s*(?:(?:called|named)\s+\S|[-`'\"“(]|[A-Z]|\w*[_\d])")
_FIRST_PERSON_I = re.compile(r"\bI\b")

# A release the question refers back to: "that packaging version", "that release", "this patchlevel".
# "Series" only after a name ("that 0.14 series"): "this series" is as often a pandas column.
_RELEASE_WORDS = ("version", "release", "series", "patchlevel")
_RELEASE_REFERENCE = re.compile(
    rf"\b(?:that|this)\s+(?:(?P<name>[\w.-]+)\s+)?(?P<head>{'|'.join(_RELEASE_WORDS)})\b", re.IGNORECASE
)
# A release number as questions write it: a version (`_VERSION`: "24.0", "3.x", "1.2.3rc1") or "v2".
_RELEASE_NUMBER = rf"{_VERSION.pattern}|\bv\d+\b"
# "that" after these opens a clause ("Is it true that version 2.0 dropped…", "does it say that release
# notes…"); it points back at nothing.
_CLAUSE_THAT = re.compile(
    r"\b(?:true|false|say|says|said|mean|means|know|think|sure|so|such|claim|claims|state|states|stated|"
    r"note|notes|noted|read|heard|ensure|check|verify|assume|possible|likely|fact)\s+$",
    re.IGNORECASE,
)
# A release word that begins a compound is not the release ("version pinning", "release notes").
_RELEASE_COMPOUND = re.compile(
    r"^\s*(?:notes?|pinning|control|management|manager|process|policy|cycle|schedule)\b", re.I
)


def _used(word: str, text: str) -> bool:
    return word.lower() not in STOPWORDS and re.search(rf"\b{re.escape(word)}\b", text, re.IGNORECASE) is not None


def _release_stated(name: str | None, text: str) -> bool:
    """Whether the text gives the release's number: after its name when it has one ("packaging to
    24.0", "packaging==24.0", "packaging's 24.0", "Python 3"), or any release number when it has none
    (a thing described, "a long-term support release", is named by the number its sentence gives:
    "Django 4.2 is a long-term support release")."""
    if not name:  # or a name's whole number: "Java 21", "Node 20"
        return re.search(rf"{_RELEASE_NUMBER}|\b[A-Z][\w+-]*\s+\d+\b(?!\.\d)", text) is not None
    after_name = rf"\b{re.escape(name)}(?:'s|’s)?(?:\s*(?:==|>=|<=|~=|\()\s*|(?:\s+[\w-]+){{0,3}}?\s+)"
    return re.search(rf"{after_name}(?:{_RELEASE_NUMBER}|\d+\b)", text, re.IGNORECASE) is not None


def back_reference(question: str) -> str | None:
    """The words by which the question's last sentence names a thing an earlier sentence describes but
    does not name ("that library", "that other tool", "that gettext release"), or a release whose number
    the question never gives ("wheel 0.43.0 updated its vendored copy of packaging. On what date was that
    packaging version released?"), or None. Such a question is asked of a thing that must first be found
    (the library HTTPX's README credits, the packaging release wheel vendors); a fact about the things the
    question names (HTTPX's own licence, wheel's release date) does not answer it. Not a back reference:
    a thing named where it is brought in ("an option -9", "a setting called workers"), one the user brings
    in ("I set a timeout. Is that timeout in seconds?"), one a question asked ("What is a zombie
    process?"), or a release whose number the question gives ("Django 4.2 is a long-term support release.
    Until when is that release supported?")."""
    parts = _SENTENCE_END.split(question.strip())
    if len(parts) < 2:
        return None
    told = [p for p in parts[:-1] if not p.rstrip().endswith("?") and not _FIRST_PERSON_I.search(p)]
    before = " ".join(told)
    for m in _BACK_REFERENCE.finditer(parts[-1]):
        words = m.group(1).split()
        for n, word in enumerate(words):
            if word.lower() in STOPWORDS or len(word) < 3:
                continue
            # Brought in by an indefinite word ("another library", "an option", "a helper program") and
            # not named there.
            described = rf"\b(?:another|an?|one|some|certain|separate)\s+(?:[\w'’-]+\s+){{0,3}}?{re.escape(word)}s?\b"
            found = re.search(described, before, re.IGNORECASE)
            if found is None or _NAMED_AFTER.match(before[found.end() :]) or found.group(0).split()[-1][:1].isupper():
                continue
            if word.lower() in _RELEASE_WORDS and _release_stated(None, question):
                continue  # "Django 4.2 is a long-term support release": its number names it
            # The words that name it, as long as the earlier sentences use them too ("that gettext
            # release", "that new option"; not "that library does jsonschema").
            last = n
            while last + 1 < len(words) and _used(words[last + 1], before):
                last += 1
            return parts[-1][m.start() : m.start(1)] + " ".join(words[: last + 1])
    return _unstated_release(parts[-1], " ".join(parts[:-1]))


def _unstated_release(last: str, earlier: str) -> str | None:
    """The words of the last sentence's reference back to a release whose number the question never
    gives: which release it is must first be found. Any sentence may give it, the user's own ("I upgraded
    to 4.2.") and the last one ("that release, 24.0") too; a release named ("that packaging version") must
    be given after its name, since another thing's number (wheel's 0.43.0) does not say it."""
    question = f"{earlier} {last}"
    for m in _RELEASE_REFERENCE.finditer(last):
        if _CLAUSE_THAT.search(last[: m.start()]) or _RELEASE_COMPOUND.match(last[m.end() :]):
            continue
        name = m.group("name")
        if name is None:
            # "this series" is as often a pandas column as a release series.
            if m.group("head").lower() == "series" or _release_stated(None, question):
                continue
        elif not _used(name, earlier) or _release_stated(name, question):
            continue  # "that new release", "that 24.0 release": no thing named before, or its number given
        return m.group(0)
    return None


# The gap an extractive abstention names for such a question.
BACK_REFERENCE_GAP = (
    "the question asks about “{}” without naming it, and without a model citegraph does not find out what "
    "it is; name it in the question, or ask with a model (--llm-base-url)"
)


_QUOTED = re.compile(r"[\"“]([^\"”]{2,60})[\"”]|(?:^|(?<=\s))[‘']([^'’\s][^'’]{1,58})['’](?=[\s.,;:?!]|$)")
_NAME_LIKE = re.compile(r"^[A-Z][a-z]*[A-Z]|^[A-Z]{2,}|\d")  # CamelCase, acronyms, words with digits


def key_terms(question: str, english: frozenset[str] = frozenset(), written: Set[str] = frozenset()) -> list[str]:
    """What a passage must mention to be about what the question asks: the question's names
    (capitalised words, acronyms, CamelCase), code (options, identifiers, paths, error codes),
    quoted phrases, numbers, and words no dictionary knows (program names such as "gzip" or "zstd";
    `english` is the word list, embed.known_words). Plain words are left to relevance: a passage may
    say "wore" for "wear". `written` are the words the corpus writes as names (lowercased): a
    hyphenated compound of plain words is a name when the corpus writes it ("apt-get"), else words
    ("resource-usage"); so is a word the list knows only by its parts when a file is named for it
    ("itsdangerous")."""
    terms: list[str] = []
    terms += [m.group(1) or m.group(2) for m in _QUOTED.finditer(question)]
    terms += _names(question, english)
    # Code, not a Latin abbreviation written like a file name ("i.e.", "e.g.": realdocs4 g01 abstained
    # with "the passages found do not mention 'i.e'").
    terms += [m.group(0).strip("`") for m in _CODE.finditer(question) if not _ABBREVIATION.fullmatch(m.group(0))]
    # Numbers, but not a digit that labels a thing ("line 1", "address 0", "level 3"): that is how a
    # question counts, and a passage says "the first line". "Apollo 5" (a name) and "5 times" stay.
    for m in re.finditer(r"(?<![\w.])\d+(?:\.\d+)*(?![\w.]*\d)", question):
        before = re.search(r"(\w+)\W*$", question[: m.start()])
        label = (
            len(m.group(0)) == 1
            and before is not None
            and before.group(1).islower()
            and not re.match(r"\s*[A-Za-z]", question[m.end() :])
        )
        glued = re.match(r"[A-Za-z_]\w*", question[m.end() :])
        if glued and (len(glued.group(0)) >= 4 or re.search(r"[\d_]", glued.group(0))):
            # A number that starts a word ("section 3type") is part of that word, as the tokenizer reads
            # it in a passage; an ordinal ("3rd"), a decade ("1990s") or a unit ("100ms", "10km") is
            # short and stays a number.
            terms.append(m.group(0) + glued.group(0))
        elif not label:
            terms.append(m.group(0))
    plain = re.sub(r"['’]s\b", "", question)
    for m in re.finditer(r"[A-Za-z][\w-]*", plain):
        w = m.group(0)
        low = w.lower()
        if low in _QUESTION_WORDS or low in STOPWORDS or len(low) < 3:
            continue
        if _NAME_LIKE.match(w) or _SNAKE.fullmatch(w):
            # A snake_case identifier is a setting's or a function's name ("clear_untrusted_proxy_headers"):
            # a passage that does not write it states some other setting's default (realdocs4 g01).
            terms.append(w)
        elif english and not _known(low, english):
            terms += [w] if low in written else _unknown_parts(w, english)
        elif english and low in written and low not in english:
            # Known only by its parts ("its" + "dangerous", "val" + "grind", "cert" + "ifi") and the
            # name of a file of the corpus: a name (itsdangerous, valgrind, certifi), not two words.
            terms.append(w)
        elif english and low in written and _called_so(plain, m.start(), m.end()):
            # A dictionary word a file of the corpus is named for, called a package, library, program…
            # ("the arrow package", "the schedule library", "the tree command"): a name.
            terms.append(w)
        elif english and _names_release(plain, m):
            # A dictionary word a release number follows names what was released ("tree 2.1.0",
            # "click 8.1.7"): Jansi's "Jansi 2.1.0, released 2020-12-07" does not say when tree 2.1.0 was.
            terms.append(w)
    # A short acronym ("US", "TCP") is often spelled out where it is meant ("United States"): not a
    # term a passage must hold letter for letter.
    terms = [t for t in terms if not re.fullmatch(r"[A-Z]{2,3}s?", t)]
    out: list[str] = []
    seen: set[tuple[str, ...]] = set()
    for t in terms:
        toks = tuple(tokenize(t))
        if toks and toks not in seen and not set(toks) <= _QUESTION_WORDS:
            seen.add(toks)
            out.append(t.strip())
    # A term inside a longer one ("Union" in "State of the Union") adds nothing.
    return [t for t in out if not any(t != o and set(tokenize(t)) < set(tokenize(o)) for o in out)]


# A release number after a word: dotted digits ("2.1.0", "v5.17"), not a count or a label ("line 1").
_RELEASE_AFTER = re.compile(
    r"\s+v?\d+(?:\.\d+)+\b(?!\s*-?\s*(?:million|billion|thousand|hundred|percent|%|per\b|mile|km|kilomet|met[er]|"
    r"feet|foot|inch|pound|kg|gram|ton|hour|minute|second|day|week|month|year))",
    re.IGNORECASE,
)
# Words a release number follows that name no product: "version 2.0", "above 3.8", "kernel 5.15" stays.
_RELEASE_NOUNS = frozenset(
    "version versions release releases revision rev update build patch series branch since least around "
    "approximately roughly nearly exactly only just then now newer older later earlier upgrade upgraded "
    "downgrade downgraded bump bumped support supports supported require requires required need needs "
    "above below under over than between from beyond past before after until till through about "
    "its their his her our your my upload uploads".split()
)


def _names_release(text: str, word: re.Match[str]) -> bool:
    """Whether a word names what the release number after it is of ("tree 2.1.0", "Python 3.12"; not
    "version 2.0", "1.5 million")."""
    return word.group(0).lower() not in _RELEASE_NOUNS and _RELEASE_AFTER.match(text, word.end()) is not None


def released_names(question: str) -> list[str]:
    """The words of a question that a release number follows and names ("Python" of "Python 3.12")."""
    found = (m.group(0) for m in re.finditer(r"[A-Za-z][\w+-]*", question) if _names_release(question, m))
    return list(dict.fromkeys(found))


_SOFTWARE_NOUN = r"(?:package|library|module|program|tool|utility|command|crate|gem|plugin|project|wheel)s?"


def _called_so(text: str, start: int, end: int) -> bool:
    """Whether the word at text[start:end] is called a package, library, program… ("the arrow package",
    "the package arrow")."""
    return bool(
        re.match(rf"\s+{_SOFTWARE_NOUN}\b", text[end:], re.IGNORECASE)
        or re.search(rf"\b{_SOFTWARE_NOUN}\s+$", text[:start], re.IGNORECASE)
    )


_I_CONTRACTION = re.compile(r"I['’](?:m|ve|d|ll)")
# Words after which a lone "I" is the first person ("Say I kill…", "Unless I configure…"), not a roman
# numeral ("Type I error", "Part I").
_CLAUSE_OPENERS = frozenset(
    "say suppose if unless when whenever once after before while since because although though so but and "
    "then now can could do does did should would will may might must am have had where what which how why".split()
)


def _names(question: str, english: frozenset[str]) -> list[str]:
    """The question's capitalised names: runs of capitalised words, each cut at a sentence's end ("…
    API. If I" is two runs). A capital that only starts a sentence ("My project…", "Under which…") names
    nothing, nor does the first person ("I'm not root…", "Say I kill…", "Unless I configure…")."""
    openers = {m.group(1) for m in re.finditer(r"(?:^|[.?!:]\s+)\W*(\w+)", question)}
    out = []
    for run in extract_entities(question):
        # A sentence ends where a dictionary word opens the next ("PATH. Which"), not at an
        # abbreviation's or an initial's point ("St. Nicholas", "Mrs. Dalloway", "U.S. Navy", "George W. Bush").
        ends = re.finditer(r"(?<!\b[A-Z])(?<!\b[A-Z][a-z])(?<!\b[A-Z][a-z]{2})[.?!:]\s+(?=(\w+))", run)
        cuts = [m.end() for m in ends if _known(m.group(1).lower(), english)]
        for e in (run[i:j] for i, j in zip([0, *cuts], [*cuts, len(run)], strict=True)):
            e = re.sub(r"['’]s\b", "", e).strip(".,;:'’- ")
            words, opener = e.split(), None
            if words and words[0] in openers and english and _known(words[0].lower(), english):
                opener, words = words[0], words[1:]
            if not words or all(_I_CONTRACTION.fullmatch(w) for w in words):
                continue
            if words == ["I"] and opener is not None and opener.lower() in _CLAUSE_OPENERS:
                continue
            if len(e) > 1:
                out.append(e)
    return out


def _unknown_parts(word: str, english: frozenset[str]) -> list[str]:
    """What of an unknown lowercase word a passage must mention. A compound a question writer
    hyphenates ("resource-usage", "non-root", "progress-bar") is plain words, which a passage may
    write apart or not at all: only its parts no dictionary knows are names ("libffi" of
    "libffi-specific"); a compound with no known part stays whole ("systemd-oomd")."""
    parts = [p for p in word.split("-") if p]
    if len(parts) < 2 or word[:1].isupper():
        return [word]
    unknown = [p for p in parts if len(p) >= 3 and not _known(p.lower(), english)]
    if len(unknown) == len(parts):
        return [word]
    return unknown


@lru_cache(maxsize=2)
def _stems(english: frozenset[str]) -> frozenset[str]:
    return frozenset(tokenize(" ".join(english)))


_SUFFIXES = "s es ed d ing er ers able ible ly ness ment ments ion ions al ity ize ise ized ised ful less".split()


def _known(word: str, english: frozenset[str]) -> bool:
    """A dictionary word: in the list, an inflection of one ("invent" for "invented"), a word of the
    list with a suffix ("callable") or two of them ("dataset", "lockfile"). A hyphenated word counts
    whole ("apt-get" is a name, not "apt" and "get")."""
    if word in english or "-" in word or "_" in word:
        return word in english
    if all(t in _stems(english) for t in tokenize(word)) and tokenize(word):
        return True
    for i in range(3, len(word) - 2):
        head, tail = word[:i], word[i:]
        if head in english and (tail in _SUFFIXES or (len(tail) >= 3 and tail in english)):
            return True
    if any(word.endswith(x) and word[: -len(x)] in english for x in _SUFFIXES if len(word) - len(x) >= 3):
        return True
    # A comparative or superlative: "riskier" of "risky", "safest" of "safe", "biggest" of "big" (realdocs3
    # g03 abstained with "the passages found do not mention 'riskier'"). Not any "-er": "logger" and
    # "fuser" are programs, named as agent nouns are.
    degree = re.fullmatch(r"(\w{2,}?)(ier|iest|est)", word)
    if degree is None:
        return False
    stem, ending = degree.groups()
    if ending.startswith("i"):
        return stem + "y" in english
    doubled = len(stem) >= 3 and stem[-1] == stem[-2] and stem[:-1] in english
    return doubled or stem in english or stem + "e" in english


def name_like(term: str, english: frozenset[str]) -> bool:
    """A term that names something (a capitalised name, an acronym, code, a number): a corpus that
    never mentions it cannot be about it. A lowercase unknown word may be one the documents never use
    for what they describe ("rustc" over Rust's error pages): that alone does not rule them out."""
    return bool(re.search(r"[A-Z\d_./-]", term)) or " " in term


class Lookup(Protocol):
    def has(self, token: str, typos: bool = False) -> bool: ...


def mentions(term: str, vocabulary: Lookup) -> bool:
    """Whether a text (its vocabulary) mentions a key term: every word of a one- or two-word term, at
    least half of a longer name's ("the Dominican Republic" in a text that says "Dominican"), each
    word as a stem or its accent-free spelling (tokens.same_word)."""
    words = tokenize(term)
    if not words:
        return True
    found = sum(vocabulary.has(w, typos=True) or _negated_has(w, vocabulary) for w in words)
    return (
        found == len(words)
        or (len(words) > 2 and 2 * found >= len(words))
        or (len(words) == 2 and found >= 1 and term[:1].isupper())
    )


def _negated_has(word: str, vocabulary: Lookup) -> bool:
    """A word negated by its prefix is mentioned by a text that says the word ("uncompressed" by "not
    compressed"): coverage asks what a passage is about, not what it affirms."""
    for prefix in ("non", "un"):
        if word.startswith(prefix) and len(word) - len(prefix) >= 4:
            return vocabulary.has(word[len(prefix) :].lstrip("-"), typos=False)
    return False


_DOTTED = re.compile(r"^v?\d+(?:[.,]\d+)+$")


def is_dotted(term: str) -> bool:
    return bool(_DOTTED.match(term))


class _Seen:
    """The corpus's vocabulary as `mentions` reads it: every token but the unseen ones."""

    def __init__(self, unseen: Set[str]):
        self.unseen = unseen

    def has(self, token: str, typos: bool = False) -> bool:
        return token not in self.unseen


class CorpusWords(Protocol):
    """What coverage reads of a corpus (retrievers.hybrid.HybridRetriever has both)."""

    def name_words(self) -> frozenset[str]: ...
    def unseen(self, tokens: list[str]) -> set[str]: ...


class PooledWords:
    """The words of several corpora read together (recent mode's corpus and web pages): a hyphenated
    word of any, a token none of them holds."""

    def __init__(self, corpora: Sequence[CorpusWords]):
        self.corpora = list(corpora)

    def name_words(self) -> frozenset[str]:
        return frozenset().union(*(c.name_words() for c in self.corpora))

    def unseen(self, tokens: list[str]) -> set[str]:
        return set.intersection(*(set(c.unseen(tokens)) for c in self.corpora)) if self.corpora else set(tokens)


def corpus_words(question: str, english: frozenset[str], corpus: CorpusWords) -> tuple[frozenset[str], set[str]]:
    """(the corpus's hyphenated words, the tokens of the question's key terms no passage contains):
    the arguments of keys_to_cover. The first call on a corpus builds its vocabulary: call it off the
    event loop."""
    written = corpus.name_words()
    keys = key_terms(question, english, written)
    return written, corpus.unseen([t for k in keys for t in tokenize(k)])


def keys_to_cover(
    question: str, english: frozenset[str], unseen: Set[str], written: Set[str] = frozenset()
) -> tuple[list[str], list[str]]:
    """(the key terms a passage must mention to answer, the names the question gives that no passage
    of the corpus mentions): `unseen` are the key terms' tokens the corpus lacks. A key term the corpus
    lacks that is not a name (a user's word for what the documents say otherwise) is not asked for."""
    keys = key_terms(question, english, written)
    seen = _Seen(unseen)
    absent = [k for k in keys if not mentions(k, seen) or (is_dotted(k) and set(tokenize(k)) & unseen)]
    named = [k for k in absent if name_like(k, english)]
    return [k for k in keys if k not in absent], named


# The judge's reason when a name the question gives is in no passage of the corpus at all: then nothing
# retrieved is about what was asked (abstain shows none of the passages' conflicts).
ABSENT_FROM_CORPUS = "no passage in the corpus mentions"


def covering_text(title: str, source: str, passage: str) -> str:
    """What a fact covers the question's key terms with: its passage, its document's title and file name
    ("… according to its README"), the name's underscores also read as the hyphens a package's name is
    written with ("charset_normalizer-2.0.12.METADATA" names charset-normalizer)."""
    name = known_name(source)
    also = f"\n{name.replace('_', '-')}" if "_" in name else ""
    return f"{title}\n{name}{also}\n{passage}"


def uncovered(terms: list[str], text: str) -> list[str]:
    """The key terms `text` does not mention. A dotted number (a version, "1.16.0") must be there as
    written, give or take a leading "v" and trailing zeros ("Git 2.39" is "2.39.0", "urllib3 2.0" is
    "v2.0"): its pieces scattered over the text ("0.16.0", "1 … 16") are another value."""
    vocabulary = Vocabulary(tokenize(text))
    out = []
    for t in terms:
        if _DOTTED.match(t):
            bare = re.escape(t.lstrip("v"))
            if not re.search(rf"(?<![\w.])(?<![\w.]v)(?:v(?=\d))?{bare}(?:\.0)*(?![\w]|\.\d)", text):
                out.append(t)
        elif t.isdigit() and re.search(rf"(?<![\w.]){t}[A-Za-z]{{1,3}}\b", text):
            continue  # "100K", "100ms": the number with its unit, as the question wrote "100K of data"
        elif not mentions(t, vocabulary):
            out.append(t)
    return out


# How much a passage that could hold the answer (the asked kind of value; every name the question
# gives, in the passage or its document's title) gains over one that cannot, on the fused score.
ANSWER_BONUS = 0.1


def answer_bonus(question: str, keys: list[str], text: str, title: str) -> float:
    """The retrieval bonus of one passage: ANSWER_BONUS for holding a value of the asked kind, as
    much again for mentioning every key term."""
    kind = answer_type(question)
    bonus = 0.0
    if kind in VALUE_TYPES and answer_values(kind, text, question):
        bonus += ANSWER_BONUS
    if keys and not uncovered(keys, f"{title}\n{text}"):
        bonus += ANSWER_BONUS
    return bonus


_FIELD = re.compile(r"^\W{0,3}([A-Za-z][\w .-]{0,30}):\s+\S")


def field_match(question: str, text: str) -> bool:
    """A "Key: value" line whose key the question asks about ("Author: Kenneth Reitz" for "Who is
    the author…?"; "Requires-Python: >=3.6" for "Which Python versions does Markdown need?", a
    requirement asked in other words): the line states exactly what is asked. Not a line whose value
    the question itself gives: "License: Apache-2.0" restates "Which release switched the project to the
    Apache 2.0 licence?" (realdocs5 i16), it does not answer it."""
    m = _FIELD.match(text)
    if not m:
        return False
    key = set(tokenize(m.group(1)))
    words = set(tokenize(question))
    value = set(tokenize(text[m.end(1) + 1 :]))
    if value and value <= words and answer_type(question) != "yesno":  # "Is it Apache-2.0?" it does answer
        return False
    if key and key <= words:
        return True
    return requirement_field(question, text)


def requirement_field(question: str, text: str) -> bool:
    """A package metadata line that states the requirement a question asks in other words:
    "Requires-Python: >=3.7" for a Python requirement (not any "Requires:"); "Requires-Dist: numpy >=1.23"
    for "how new must numpy be?", the dependency being the one asked about."""
    m = _FIELD.match(text)
    if not m or not asks_requirement(question):
        return False
    key = set(tokenize(m.group(1)))
    if _REQUIRES_TERM not in key or len(key) < 2:
        return False
    words = set(tokenize(question))
    if key <= words | {_REQUIRES_TERM}:
        return True
    dependency = re.match(r"\s*([A-Za-z0-9][\w.-]*)", text[m.end(1) + 1 :])
    return key == _DIST_KEY and dependency is not None and set(tokenize(dependency.group(1))) <= words


def answer_score(relevance: float, answer_p: float | None, typed: bool) -> float:
    """How well a sentence answers, for ranking: its lexical relevance, averaged with the sentence
    scorer's probability when it was scored (reader.get_sentence_scorer), discounted when it lacks the
    kind of value asked. Extraction ranks a passage's sentences by it, the writer the facts."""
    score = relevance if answer_p is None else (answer_p + relevance) / 2
    return score if typed else score * TYPE_DISCOUNT


# The answer-sentence scorer's probability from which a sentence bears on the question however few of
# its words it shares: a question worded unlike its answer ("why is ffi_prep_closure deprecated?" for
# "This function is deprecated, as it cannot handle the need for separate writable and executable
# addresses"). 0.75, not 0.5, chosen on the dev mixture: at 0.5 a README's table row answered "On what
# date was Rich 13.7.1 released?", which no document says.
BEARS_P = 0.75


def bears(relevance: float, answer_p: float | None, min_relevance: float) -> bool:
    """Whether a fact bears on the question: lexical relevance from `min_relevance` (Context's
    min_fact_relevance), or the sentence scorer's probability from BEARS_P."""
    return relevance >= min_relevance or (answer_p or 0.0) >= BEARS_P


def support(scored: Iterable[tuple[float, bool]]) -> float:
    """Support for an answer from (relevance, holds-the-asked-kind-of-value) of each fact."""
    best = 0.0
    for rel, typed in scored:
        best = max(best, rel if typed else rel * TYPE_DISCOUNT)
    return round(best, 4)


def strongest(facts: Sequence[Fact], judge: str) -> Fact | None:
    """The fact whose score `support` took for the lexical or sentence judge: the one an abstention
    below the threshold names as the closest."""

    def score(f: Fact) -> float:
        rel = (f.answer_p or 0.0) if judge == "sentences" else f.relevance
        return rel if f.typed else rel * TYPE_DISCOUNT

    return max(facts, key=score, default=None)


IdfLookup = Callable[[list[str]], dict[str, float]]
