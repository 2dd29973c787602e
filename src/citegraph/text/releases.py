"""Which documents are releases of one another: files whose names differ only in a version number
("click-7.1.2.METADATA.txt" and "click-8.1.7.METADATA.txt", "manual-v2.3.pdf" and "manual-v3.0.pdf").

Two releases of one document state the same attributes, and where a value changed between them a user
needs to see both. Retrieval found one release's line and not the other's (realdocs: click 8.1.7's
"Requires-Python: >=3.7" ranked 12th for "click Requires-Python" behind click 7.1.2's, its passage being
classifiers where 7.1.2's also held the description), so the change went unreported. Retrieval now
reads the best-matching passage of the other releases of its top passages (nodes/retrieve.py).

Only dotted versions mark a release: a year ("report-2023") or a section number ("tar.1") does not, and
records of one file (a JSONL of many documents) are never releases of one another.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

# What documentation files are called where no suffix says their format (the name before its first
# dot, any case): /usr/share/doc/PKG/{README, copyright, README.Debian, changelog.Debian.gz}, a source
# tree's AUTHORS or NEWS, a wheel's METADATA, an sdist's PKG-INFO. Such a name says nothing of whose
# file it is: its folder does.
DOC_NAMES = frozenset(
    "readme news changes changelog history authors thanks todo bugs faq install notice copying license "
    "licence copyright credits contributors maintainers metadata pkg-info".split()
)


def is_doc_name(file_name: str) -> bool:
    return file_name.split(".")[0].lower() in DOC_NAMES


def known_name(source: str) -> str:
    """The name a file goes by: its own, less ".gz" ("README.md" of "README.md.gz"); a generic one with
    its folder's in front, joined by a dot ("libelf1.changelog.Debian" of
    /usr/share/doc/libelf1/changelog.Debian.gz, "arrow-1.3.0.dist-info.METADATA"), so that what it is
    named for (document_name) and its release (series) are its folder's. A URL's is its last part."""
    if not source:
        return ""
    path = Path(source)
    name = path.name[:-3] if path.name.lower().endswith(".gz") else path.name
    if "://" not in source and is_doc_name(name) and path.parent.name:
        return f"{path.parent.name}.{name}"
    return name


_VERSION = re.compile(r"(?<![a-z0-9])v?\d+(?:\.\d+)+(?:(?:a|b|rc|dev|post)\d*)?(?![0-9])")
MAX_RELEASES = 2  # other releases read per passage: the ones nearest in version order


def series(file_name: str) -> str | None:
    """The name with its version taken out ("click-#.metadata.txt"), or None if it names no version."""
    name = file_name.lower()
    key = _VERSION.sub("#", name)
    return key if key != name else None


def document_name(file_name: str) -> str:
    """What a file is named for, lowercased: its name before the first dot, less a trailing version
    ("itsdangerous" of "itsdangerous-2.2.0.METADATA.txt", "nice" of "nice.1.pdf", "python-dateutil" of
    "python-dateutil-2.9.0.post0.NEWS")."""
    return re.sub(r"[-_]v?\d\w*$", "", file_name.lower().split(".")[0])


def _version(file_name: str) -> tuple[int, ...]:
    m = _VERSION.search(file_name.lower())
    return tuple(int(x) for x in re.findall(r"\d+", m.group(0))[:4]) if m else ()


def releases(paths: dict[str, str]) -> dict[str, list[str]]:
    """For each document id (given its file path), the ids of its other releases: documents from other
    files of the same series, nearest version first."""
    groups: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for doc_id, path in paths.items():
        key = series(known_name(path))
        if key is not None:
            groups[key].append((doc_id, path))
    out: dict[str, list[str]] = {}
    for members in groups.values():
        for doc_id, path in members:
            own = _version(known_name(path))
            others = [(d, p) for d, p in members if p != path]
            others.sort(key=lambda dp: _distance(own, _version(known_name(dp[1]))))
            if others:
                out[doc_id] = [d for d, _ in others[:MAX_RELEASES]]
    return out


def _distance(a: tuple[int, ...], b: tuple[int, ...]) -> tuple[int, ...]:
    """Order of nearness between two versions: the first differing part decides."""
    n = max(len(a), len(b))
    a, b = a + (0,) * (n - len(a)), b + (0,) * (n - len(b))
    return tuple(abs(x - y) for x, y in zip(a, b, strict=True))
