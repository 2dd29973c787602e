"""Dates: parsing what documents and users write into ISO dates, and the YYYYMMDD integers that
Chroma's range filters need (they compare numbers only)."""

from __future__ import annotations

import re
from datetime import date, datetime

from citegraph.errors import InputError

_ISO = re.compile(r"^\s*(\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?")


def parse_date(value: object) -> date | None:
    """A date from an ISO string ('2021', '2021-03', '2021-03-01', '2021-03-01T10:00Z'), a year as a
    number, or a date/datetime. Returns None for empty or unparseable input."""
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, int) and 1 <= value <= 9999:
        return date(value, 1, 1)
    m = _ISO.match(str(value))
    if not m:
        return None
    year, month, day = int(m.group(1)), int(m.group(2) or 1), int(m.group(3) or 1)
    try:
        return date(year, month, day)
    except ValueError:
        return None


def require_date(value: str, what: str) -> date:
    """Parse a user-supplied date or fail with a message that says which option was wrong."""
    d = parse_date(value)
    if d is None:
        raise InputError(f"{what}: {value!r} is not a date (use YYYY, YYYY-MM or YYYY-MM-DD)")
    return d


def date_to_int(d: date | None) -> int:
    """YYYYMMDD, or 0 for no date."""
    return d.year * 10000 + d.month * 100 + d.day if d else 0


def int_to_date(value: int) -> date | None:
    if not value:
        return None
    return date(value // 10000, (value // 100) % 100, value % 100)


_MONTH_NAMES = "january february march april may june july august september october november december".split()
_MONTH = {m: i + 1 for i, m in enumerate(_MONTH_NAMES)} | {m[:3]: i + 1 for i, m in enumerate(_MONTH_NAMES)}
_M = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_WRITTEN = [
    # 2021-03-01
    (re.compile(r"\b((?:19|20)\d\d)-(\d\d)-(\d\d)\b"), ("y", "m", "d")),
    # March 1, 2021 / Mar 1 2021
    (re.compile(rf"\b{_M}\s+(\d{{1,2}}),?\s+((?:19|20)\d\d)\b", re.IGNORECASE), ("mon", "d", "y")),
    # 1 March 2021 / Mon, 01 Mar 2021 (RFC 2822)
    (re.compile(rf"\b(\d{{1,2}})\s+{_M}\s+((?:19|20)\d\d)\b", re.IGNORECASE), ("d", "mon", "y")),
    # March 2021
    (re.compile(rf"\b{_M}\s+((?:19|20)\d\d)\b", re.IGNORECASE), ("mon", "y")),
]
# Lines that state when the document itself was written or released, near its top.
_DATE_LINE = re.compile(
    r"^\W*(date|released?|release date|last (updated|modified|revised|changed)|updated|published|revised|"
    r"revision date|copyright date)\b",
    re.IGNORECASE,
)
# A man page footer: "GNU tar 1.34        March 2021        TAR(1)" (also the header of its PDF pages).
# (A PDF's footer ends with the page number instead.)
_MAN_FOOTER = re.compile(r"^\S.*?\s{2,}(\S.*?\S)\s{2,}(?:[\w.+-]+\(\d\w*\)|\d{1,4})\s*$", re.MULTILINE)
# A Debian changelog's trailer line: " -- Name <mail>  Mon, 01 Mar 2021 12:00:00 +0100" (latest first).
_DEB_TRAILER = re.compile(r"^ -- .+?<[^>]*>\s+(.+)$", re.MULTILINE)


def written_dates(text: str) -> list[tuple[int, int]]:
    """The spans of the dates written out in `text` ("June 2, 2022", "11 Apr 2022", "2022-04-07",
    "March 2021"), in order, none inside another."""
    spans: list[tuple[int, int]] = []
    for pattern, _ in _WRITTEN:
        for m in pattern.finditer(text):
            if not any(a <= m.start() < b or a < m.end() <= b for a, b in spans):
                spans.append(m.span())
    return sorted(spans)


def find_date(text: str) -> date | None:
    """The first date written out in `text` (ISO, "March 1, 2021", "1 March 2021", "March 2021")."""
    best: tuple[int, date] | None = None
    for pattern, order in _WRITTEN:
        for m in pattern.finditer(text):
            parts = dict(zip(order, m.groups()[-len(order) :], strict=True))
            try:
                month = _MONTH[parts["mon"][:3].lower()] if "mon" in parts else int(parts["m"])
                d = date(int(parts["y"]), month, int(parts.get("d", 1)))
            except (KeyError, ValueError):
                continue
            if best is None or m.start() < best[0]:
                best = (m.start(), d)
            break
    return best[1] if best else None


def stated_date(text: str) -> date | None:
    """The date a document states for itself, or None: a "Date:" / "Released" / "Last updated" line
    in its first 40 lines, a man page footer, or the latest entry of a Debian changelog. A date
    merely mentioned in the text (a history, an example) is not the document's date."""
    for line in text[:4000].splitlines()[:40]:
        if _DATE_LINE.match(line.strip()):
            d = find_date(line)
            if d:
                return d
    m = _DEB_TRAILER.search(text[:20000])
    if m and (d := find_date(m.group(1))):
        return d
    footers = _MAN_FOOTER.findall(text[-3000:]) or _MAN_FOOTER.findall(text[:3000])
    for middle in reversed(footers):
        d = find_date(middle)
        if d:
            return d
    return None
