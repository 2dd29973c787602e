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
