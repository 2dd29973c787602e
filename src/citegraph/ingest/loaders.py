"""Loaders: files on disk to `SourceDoc` records (text + metadata), or a `Skipped` with the reason.

Formats: .txt, .md (YAML front matter: title, date, source_tier, url; the Markdown rendered by
markdown-it-py), .rst (rendered by docutils), .html/.htm (title, date from meta tags), .docx
(python-docx), .pdf (pypdf, one block per page; the page start offsets are kept so a citation can
name its page) and .jsonl in BEIR corpus format (`_id`, `title`, `text`, optional `date`,
`source_tier`, `url`, anything else as metadata). Marked-up formats go through one HTML reader, so
their stored text is plain prose with headings kept as Markdown headings (chunking follows them) and
no markup left for a quote to carry (`**Note**:`, reST underlines).

Files as they lie on disk are read too: a documentation file known by its name rather than a suffix
(`README`, `copyright`, `README.Debian`, `changelog.Debian`, a wheel's `METADATA`, an sdist's `PKG-INFO`)
is text, and a gzip-compressed file (`changelog.Debian.gz`, `README.md.gz`, all over /usr/share/doc) is
read as the file inside it. Such a generic name says nothing of whose file it is, so its folder goes in
its title ("libelf1: changelog.Debian", "arrow-1.3.0.dist-info: METADATA"). A package's metadata (the
email-header format of METADATA and PKG-INFO) keeps its `Key: value` fields as lines and renders the
long description in the format its `Description-Content-Type` declares (Markdown or reST), so its
README's markup reaches no quote either.

The stored text is what citations point into, so loaders repair what extraction breaks before
storing it: PDF hyphenation ("bet‐ ter") and letter spacing ("serv er"), sentences run together
("Center.We").

A document's date and where it came from (`metadata["date_source"]`), in order of trust: the record or
front matter, the HTML meta tags, a date the text states itself (a "Date:"/"Released" line near the
top, a man page footer, a Debian changelog trailer), and only then the file's own metadata (a PDF's
creation date, `"file metadata"`), which says when a file was made, not what it describes; the
retriever does not weigh recency by it (nodes/retrieve.py).

A loader never raises for bad input: an unreadable, empty, binary or corrupt file (or JSONL line)
becomes a `Skipped` that the ingest summary reports.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from citegraph.text.dates import parse_date, stated_date, written_dates
from citegraph.text.releases import is_doc_name
from citegraph.text.tokens import tokenize

# Raised when what a loader makes of a file changes: corpora read with an older version read their
# files again on the next ingest (pipeline.py).
LOADERS_VERSION = 16

SUPPORTED = {".txt", ".md", ".markdown", ".rst", ".html", ".htm", ".pdf", ".docx", ".jsonl"}
# Package metadata in the email-header format (core metadata: a wheel's METADATA, an sdist's PKG-INFO).
METADATA_NAMES = frozenset({"metadata", "pkg-info"})
# A compressed file is read as the file inside it, up to this many bytes once inflated (a small file
# may inflate to gigabytes: it is refused, not read); the pipeline passes its --max-file-mb here.
MAX_INFLATED_BYTES = 20 * 1024 * 1024
DEFAULT_TIER = "secondary"


@dataclass
class SourceDoc:
    doc_id: str
    title: str
    text: str
    source: str  # file path (or the record's url); with a JSONL file, "path#line"
    date: str | None = None  # ISO date
    source_tier: str = DEFAULT_TIER
    metadata: dict[str, Any] = field(default_factory=dict)
    pages: list[int] | None = None  # start offset of each page in `text` (PDF)
    content_hash: str = ""

    def __post_init__(self) -> None:
        if not self.content_hash:
            payload = json.dumps(
                [self.title, self.text, self.date, self.source_tier, self.metadata],
                sort_keys=True,
                default=str,
            )
            self.content_hash = hashlib.sha256(payload.encode()).hexdigest()


@dataclass
class Skipped:
    source: str
    reason: str


@dataclass
class LoadedFile:
    """What one file yielded: documents and skipped records (a JSONL file can have both)."""

    path: Path
    docs: list[SourceDoc]
    skipped: list[Skipped]
    notes: list[str] = field(default_factory=list)  # e.g. the encoding a non-UTF-8 file was read in


def discover(paths: Iterable[str | Path]) -> tuple[list[Path], list[Skipped], list[Path]]:
    """Files to load under the given paths, in a stable order.

    Returns (files, problems, ignored): problems are paths that do not exist or explicitly named
    files of an unsupported type; `ignored` are unsupported files found inside folders (reported,
    but not an error: a folder of papers often holds images too).
    """
    files: list[Path] = []
    problems: list[Skipped] = []
    ignored: list[Path] = []
    seen: set[Path] = set()
    for raw in paths:
        p = Path(raw).expanduser()
        if not p.exists():
            broken = f"a broken symbolic link (to {os.readlink(p)})" if p.is_symlink() else "no such file or folder"
            problems.append(Skipped(str(raw), broken))
            continue
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if any(part.startswith(".") for part in f.relative_to(p).parts):
                    continue
                if f.is_symlink() and not f.exists():
                    problems.append(Skipped(str(f), f"a broken symbolic link (to {os.readlink(f)})"))
                elif f.is_symlink() and f.is_dir():
                    # Folder links are not walked into (one can loop back to where it sits); say so.
                    target = f.resolve()
                    if f.parent.resolve().is_relative_to(target):
                        problems.append(Skipped(str(f), f"a symbolic link that loops back to {target}; not followed"))
                    else:
                        problems.append(Skipped(str(f), f"a symbolic link to a folder, not followed: name {target}"))
                elif f.is_file():
                    (files if is_supported(f) else ignored).append(f)
        elif is_supported(p):
            files.append(p)
        else:
            problems.append(Skipped(str(raw), f"unsupported file type {p.suffix or '(none)'}"))
    problems = list({(s.source, s.reason): s for s in problems}.values())  # a link named twice: once
    unique = []
    for f in files:
        r = f.resolve()
        if r not in seen:
            seen.add(r)
            unique.append(r)
    return unique, problems, ignored


def inner_name(path: Path) -> str:
    """The name of the file a path holds: less its ".gz" when compressed ("README.md" of "README.md.gz")."""
    return path.name[:-3] if path.name.lower().endswith(".gz") else path.name


def _format(name: str) -> str | None:
    """The format a file name says, by its suffix or as a documentation file's known name; None when
    it says none citegraph reads."""
    suffix = Path(name).suffix.lower()
    if suffix in SUPPORTED:
        return suffix
    if is_doc_name(name):
        return ".txt"
    return None


def is_supported(path: Path) -> bool:
    kind = _format(inner_name(path))
    if inner_name(path) != path.name:
        return kind not in {None, ".jsonl"}  # a BEIR corpus is streamed line by line from its file
    return kind is not None


def file_doc_id(path: Path) -> str:
    """Stable id of a file's document: a readable slug of its name plus a hash of its full path."""
    slug = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")[:40] or "doc"
    return f"{slug}-{hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:8]}"


def load_file(path: Path, max_bytes: int = MAX_INFLATED_BYTES) -> LoadedFile:
    """The documents of one file, or why it was skipped. `max_bytes` bounds what a compressed file may
    inflate to."""
    name = inner_name(path)
    kind = _format(name) or path.suffix.lower()
    notes: list[str] = []
    encoding: str | None = None
    try:
        if kind == ".jsonl":
            return _load_jsonl(path)
        raw = path.read_bytes()
        if name != path.name:
            raw_or_skip = _inflate(path, raw, max_bytes)
            if isinstance(raw_or_skip, Skipped):
                return LoadedFile(path, [], [raw_or_skip], notes)
            raw = raw_or_skip
        if kind == ".pdf":
            doc_or_skip = _load_pdf(path, raw)
        elif kind == ".docx":
            doc_or_skip = _load_docx(path, raw)
        else:
            text, encoding, how = _decode(raw)
            if how:
                notes.append(f"{path}: {how}")
            if text is None:
                doc_or_skip = Skipped(str(path), "binary or undecodable file (not text in any encoding found)")
            elif kind in {".html", ".htm"}:
                doc_or_skip = _load_html(path, text)
            elif kind in {".md", ".markdown"}:
                doc_or_skip = _load_markdown(path, text)
            elif kind == ".rst":
                doc_or_skip = _load_rst(path, text)
            elif name.split(".")[0].lower() in METADATA_NAMES or _METADATA_START.match(text):
                doc_or_skip = _load_metadata(path, text)
            elif looks_like_markdown(text):
                doc_or_skip = _load_markdown(path, text, front_matter=False)
            else:
                doc_or_skip = _text_doc(path, text, {})
    except OSError as exc:
        doc_or_skip = Skipped(str(path), f"unreadable: {exc.strerror or exc}")
    if isinstance(doc_or_skip, Skipped):
        return LoadedFile(path, [], [doc_or_skip], notes)
    if notes and encoding:
        doc_or_skip.metadata.setdefault("encoding", encoding)
    return LoadedFile(path, [doc_or_skip], [], notes)


def _inflate(path: Path, data: bytes, max_bytes: int) -> bytes | Skipped:
    """A gzip file's content, read no further than `max_bytes` (so a bomb costs nothing)."""
    import gzip
    import io
    import zlib

    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as f:
            out = f.read(max_bytes + 1)
    except (OSError, EOFError, zlib.error) as exc:
        return Skipped(str(path), f"corrupt gzip file: {exc}")
    if len(out) > max_bytes:
        limit = max_bytes / 1024 / 1024
        return Skipped(str(path), f"inflates to over the {limit:.0f} MB limit: split it, or pass --max-file-mb")
    return out


# -- text formats ---------------------------------------------------------------------------------
_UTF8_SEQUENCE = re.compile(rb"[\xc2-\xdf][\x80-\xbf]|[\xe0-\xef][\x80-\xbf]{2}|[\xf0-\xf4][\x80-\xbf]{3}")


_COMMON_ENCODINGS = ("cp1252", "iso8859_15", "latin_1", "utf_16", "cp1251", "shift_jis", "gb18030", "euc_kr")


def _decode(data: bytes) -> tuple[str | None, str | None, str | None]:
    """The text, its encoding and, when it was not clean UTF-8, how it was read (reported, so no file turns into
    mojibake without a word). UTF-8 with a few bad bytes keeps its UTF-8 and marks the bad bytes;
    anything else is read in the encoding charset-normalizer finds, or not at all."""
    if b"\x00" in data[:8192]:
        return None, None, None
    try:
        return data.decode("utf-8-sig"), "utf-8", None
    except UnicodeDecodeError:
        pass
    replaced = data.decode("utf-8", errors="replace")
    bad = replaced.count("\ufffd")
    if _UTF8_SEQUENCE.search(data) and bad <= max(3, len(data) // 1000):
        return replaced, "utf-8", f"{bad} invalid UTF-8 byte sequence(s) replaced by U+FFFD"
    from charset_normalizer import from_bytes

    matches = list(from_bytes(data))
    if not matches:
        return None, None, None
    # Short texts fit many code pages equally well (a French line reads as cp775 as cleanly as cp1252):
    # among the cleanest readings, take the most common legacy encoding of documents.
    cleanest = min(m.chaos for m in matches)
    tied = [m for m in matches if m.chaos <= cleanest + 0.01]
    best = next((m for enc in _COMMON_ENCODINGS for m in tied if m.encoding == enc), tied[0])
    return str(best), best.encoding, f"not UTF-8: read as {best.encoding}"


def _normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x0c", "\n\n")
    text = _SOFT_BREAK.sub(r"\1\2", re.sub(r"[ \t]+\n", "\n", text))  # man(1) output breaks words too
    return _RUN_TOGETHER.sub(r"\1 \2", text)


# "Center.We": a sentence end with no space after it (OCR, PDF and scraped text lose it). Only a
# word of 3+ letters, lowercase but its first, before and a capitalised word after that a lowercase
# word follows ("Center.We agreed"): "e.g.Foo", "U.S.Army", file names and code ("requests.Session()",
# "mako.lookup") are left alone.
_RUN_TOGETHER = re.compile(r"(?<![.\w])([A-Za-z][a-z]{2,}[.!?])([A-Z][a-z]*)(?= [a-z])")
# A word broken by a hyphenation point: U+00AD (soft hyphen) or U+2010 (the hyphen groff and TeX
# print at a break), then a line break or spaces and the rest of the word ("bet‐ ter").
_SOFT_BREAK = re.compile(r"(\w)[\u00ad\u2010](?:[ \t]*\n[ \t]*|[ \t]+)([a-z])")
# An ASCII hyphen at a line end before a lowercase word part ("compres-\nsors", "command-\nline").
_HARD_BREAK = re.compile(r"(\w+)-[ \t]*\n(?:[ \t]*\n)?[ \t]*([a-z]\w*)")
# Two letter runs with one space between them: a word PDF extraction may have split ("serv er",
# "T AR(1)", "accompan y") where a justified line spread its letters; also inside a hyphenated name
# ("systemd-netw orkd").
_SPLIT = re.compile(r"(?<![\w])([A-Za-z]+) (?=([A-Za-z]+)(?!\w))")
# A capital letter spaced off a camelCase rest ("P ollIntervalMaxSec"): no word is spelt so.
_CAMEL_REST = re.compile(r"[a-z]+[A-Z]\w*")
_WORDS = re.compile(r"[a-z]+", re.IGNORECASE)
_INFLECTIONS = ("s", "es", "ed", "d", "ing", "ly")


def split_pairs(text: str) -> Counter[tuple[str, str]]:
    """How often each pair of letter runs stands one space apart (lowercased): what tells a part used
    on its own from one that only occurs split off its other half."""
    return Counter((m.group(1).lower(), m.group(2).lower()) for m in _SPLIT.finditer(text))


def repair_pdf_text(
    text: str,
    vocabulary: Counter[str] | None = None,
    pairs: Counter[tuple[str, str]] | None = None,
    written: set[str] | None = None,
) -> str:
    """Undo what PDF text extraction breaks, judged against the document's own words (`vocabulary`,
    lowercase word counts of the whole document; `pairs`, its split_pairs; `written`, its words as
    written, case kept) and an English word list (embed.known_words):
    - a word hyphenated at a line end is joined: with its hyphen when the hyphenated form occurs
      elsewhere in the document or both parts are words and the joined one is not ("command-\nline"
      -> "command-line", "block-\nsorting"), without it otherwise ("compres-\nsors" -> "compressors",
      "unde-\ntected"): in justified text most line-end hyphens are hyphenation points;
    - a word split in two by letter spacing is joined when the joined word is known and one of the two
      parts is not a word ("serv er" -> "server", "w ork" -> "work"; "by a" stays), or when the document
      writes the joined word whole elsewhere and neither part anywhere else ("ser vice": the word list
      holds such fragments; "file system", "in to", "the command" stay); a capital spaced off a
      camelCase rest that starts with no word is joined ("P ollIntervalMaxSec"; "A macOS" stays), and
      inside a hyphenated name or long option a listed word whose first part the document has nowhere
      else ("systemd-netw orkd", "--r emove"; "llvm-ar e" stays) or a word the document writes whole
      from two parts it has nowhere else; a short option stays apart from the word after it ("-f or");
    - a word the document writes whole elsewhere, as it is cased here, split off a part the document has
      nowhere else and no word list holds ("/none xistent", "PGPOR T"; not "fallback NTP" beside
      "FallbackNTP=").
    Everything else is left as extracted."""
    from citegraph.embed import known_words

    vocab = vocabulary if vocabulary is not None else Counter(_WORDS.findall(text.lower()))
    written = written if written is not None else set(_WORDS.findall(text))
    english = known_words()

    def listed(word: str) -> bool:
        w = word.lower()
        # An inflection of a word ("def aults" -> "defaults", "pro cessed"): the word list holds stems.
        return w in english or any(
            w.endswith(x) and w[: -len(x)] in english for x in _INFLECTIONS if len(w) - len(x) >= 4
        )

    def known(word: str) -> bool:
        return listed(word) or vocab[word.lower()] > 1

    # A part is used on its own only if the document has it elsewhere than split off its other half
    # (the word list holds fragments such as "ser" and "vice").
    pairs = pairs if pairs is not None else split_pairs(text)

    def standalone(word: str) -> bool:
        w = word.lower()
        return w in ("a", "i") if len(w) == 1 else w in english

    def on_its_own(left: str, right: str) -> tuple[bool, bool]:
        """Whether each part is a word the document uses elsewhere than in this pair."""
        apart = pairs[(left.lower(), right.lower())]
        return tuple(  # type: ignore[return-value]
            standalone(w) if len(w) == 1 else (w.lower() in english and vocab[w.lower()] > apart) for w in (left, right)
        )

    def camel_split(left: str, right: str) -> bool:
        """A capital spaced off a camelCase rest that starts with no word ("P ollIntervalMaxSec"; not
        "A macOS", "C iPhone", "A fileName")."""
        rest = _CAMEL_REST.fullmatch(right)
        head = re.match(r"[a-z]+", right)
        return bool(
            rest
            and len(left) == 1
            and left.isupper()
            and left not in "AI"
            and head
            and len(head.group(0)) >= 2
            and not listed(head.group(0))
        )

    def unheard(word: str, other: str, left: bool) -> bool:
        """Neither a listed word nor one the document writes elsewhere ("netw", "orkd")."""
        w = word.lower()
        apart = pairs[(w, other.lower())] if left else pairs[(other.lower(), w)]
        return not listed(w) and vocab[w] <= apart

    text = _SOFT_BREAK.sub(r"\1\2", text).replace("\u00ad", "")

    def hard(m: re.Match[str]) -> str:
        left, right = m.group(1), m.group(2)
        hyphenated = re.search(rf"\b{re.escape(left)}-{re.escape(right)}\b", text, re.IGNORECASE)
        compound = not known(left + right) and standalone(left) and standalone(right)
        return f"{left}-{right}" if hyphenated or compound else left + right

    text = _HARD_BREAK.sub(hard, text)

    out: list[str] = []
    pos = 0
    for m in _SPLIT.finditer(text):
        if m.start() < pos:
            continue  # the left part was already glued to the word before it
        left, right = m.group(1), m.group(2)
        before = text[max(0, m.start() - 2) : m.start()]
        if before.endswith("-") and not (before == "--" or (before[:1].isalnum() and len(left) > 1)):
            continue  # a short option ("-f or", "-D dictionaryName", "-vfs name") and the word after it
        joined = left + right
        if before.endswith("-") and before != "--":
            # Inside a hyphenated name: a listed word whose first part the document has nowhere else
            # ("ps-lik e", "top-le vel"; "llvm-ar e" stays), or a word the document writes whole, from two
            # parts it has nowhere else.
            alone = vocab[left.lower()] > pairs[(left.lower(), right.lower())]
            join = (listed(joined) and not alone) or (
                left.islower()
                and right.islower()
                and vocab[joined.lower()] > 0
                and unheard(left, right, True)
                and unheard(right, left, False)
            )
        else:
            join = (
                (len(joined) >= 3 and known(joined) and not (standalone(left) and standalone(right)))
                # "ser vice": a listed word the document writes whole elsewhere, split into two parts it
                # has nowhere else
                or (
                    len(joined) >= 3
                    and listed(joined)
                    and vocab[joined.lower()] > 0
                    and not any(on_its_own(left, right))
                )
                or camel_split(left, right)
                or (
                    len(joined) >= 5
                    and joined in written
                    and (unheard(left, right, True) or unheard(right, left, False))
                )
            )
        if join:
            out.append(text[pos : m.start()] + joined)
            pos = m.end() + len(right)
    out.append(text[pos:])
    return "".join(out)


def _text_doc(path: Path, text: str, front: dict[str, Any]) -> SourceDoc | Skipped:
    text = _normalise(text)
    if not text.strip():
        return Skipped(str(path), "empty file")
    title = str(front.pop("title", "") or "") or _first_heading(text) or _file_title(path, text)
    date = parse_date(front.pop("date", None))
    date_source = str(front.pop("date_source", "front matter")) if date else ""
    if date is None:
        date = stated_date(text)
        date_source = "text" if date else ""
    if date is None:
        date = parse_date(front.pop("file_date", None))
        date_source = "file metadata" if date else ""
    front.pop("file_date", None)
    if date_source:
        front["date_source"] = date_source
    tier = str(front.pop("source_tier", front.pop("tier", DEFAULT_TIER)) or DEFAULT_TIER)
    source = str(front.pop("url", "") or path)
    return SourceDoc(
        doc_id=file_doc_id(path),
        title=title[:300],
        text=text,
        source=source,
        date=date.isoformat() if date else None,
        source_tier=tier,
        metadata=_scalars(front) | {"path": str(path)},
    )


def _file_title(path: Path, text: str = "") -> str:
    """A file's name less its suffixes of format ("README" of README.md.gz); a generic name with its
    folder's ("libelf1: changelog.Debian", "arrow-1.3.0.dist-info: METADATA"): that says whose it is;
    and with what the file says it is about, when it says more than that (stated_subject)."""
    name = inner_name(path)
    stem = Path(name).stem if Path(name).suffix.lower() in SUPPORTED else name
    if not (is_doc_name(name) and path.parent.name):
        return stem
    title = f"{path.parent.name}: {stem}"
    subject = stated_subject(text)
    if subject and set(tokenize(subject)) - set(tokenize(title)):
        title += f" ({subject})"
    return title


# A Debian changelog's or NEWS.Debian's entry opens with its source package: "lm-sensors (1:3.6.0-7.1)
# unstable; urgency=medium" in /usr/share/doc/libsensors5, a folder named for the binary package.
_DEBIAN_ENTRY = re.compile(r"\A\s*([a-z0-9][a-z0-9+.-]+) \([^()\s]+\) [^;\n]+; urgency=")
# A plain-text title underlined on the next line ("lm-sensors CHANGES file" over "-----"), the rule
# about as long as the title: a short rule under a long line is a break after a paragraph.
_UNDERLINED = re.compile(r"\A\s*([^\n]*\w[^\n]*)\n([=-]{3,})[ \t]*(?:\n|\Z)")


def stated_subject(text: str) -> str | None:
    """What a file under a generic name says it is about in its first line: the source package of a
    Debian changelog ("lm-sensors", of libsensors5's), or an underlined title ("lm-sensors CHANGES
    file", of its upstream changelog). Users ask about lm-sensors, not libsensors5."""
    m = _DEBIAN_ENTRY.match(text)
    if m is None and (u := _UNDERLINED.match(text)):
        title = u.group(1).strip()
        if len(title) <= 120 and len(u.group(2)) >= 0.7 * len(title):
            m = u
    return " ".join(m.group(1).split()) if m else None


def _first_heading(text: str) -> str | None:
    for line in text.splitlines():
        s = line.strip()
        if s:
            return s.lstrip("#").strip()[:200] if s.startswith("#") else None
    return None


_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)


def _load_markdown(path: Path, text: str, front_matter: bool = True) -> SourceDoc | Skipped:
    """`front_matter`: read a leading YAML block as the document's fields (a `.md` file's; a text file
    found to be Markdown may open with a "---" rule and has none)."""
    front: dict[str, Any] = {}
    m = _FRONT.match(text) if front_matter else None
    if m:
        try:
            parsed = yaml.safe_load(m.group(1))
        except yaml.YAMLError as exc:
            return Skipped(str(path), f"invalid YAML front matter: {str(exc).splitlines()[0]}")
        if isinstance(parsed, dict):
            front = {str(k).lower(): v for k, v in parsed.items()}
        text = text[m.end() :]
    body, _ = html_blocks(_markdown_html(text))
    return _text_doc(path, body, front)


# Markdown by its marks: an ATX heading ("## 2.4.0") and a link to an address ("[Jansi 2.4.0][2_4_0]" with
# its "[2_4_0]: https://…", or "[4.0.0](https://…)"). Upstream changelogs installed as changelog.gz are
# Markdown under a plain name (13 of the 2,904 text files of this machine's /usr/share/doc, all of them
# Markdown); read as text, their quotes carried the link syntax. Man pages and plain READMEs have
# neither mark, and a text file without both stays as written.
_MD_HEADING = re.compile(r"^#{1,6} \S", re.MULTILINE)
_MD_LINK = re.compile(r"\[[^\]\n]+\]\((?:https?://|\.{0,2}/|#)[^)\s]*\)|^ {0,3}\[[^\]\n]+\]: +\S", re.MULTILINE)


def looks_like_markdown(text: str) -> bool:
    """Whether a file of plain text is Markdown: it has both a heading and a link in Markdown's syntax."""
    return bool(_MD_HEADING.search(text) and _MD_LINK.search(text))


# reST's own marks: a title underlined to its length, and a hyperlink ("`Fabric <https://…>`_", "`docs`_"),
# a directive or target (".. image::", ".. _install:", ".. [#]") or an inline literal (``timeout``).
_RST_TITLE = re.compile(r"^(\S[^\n]{1,78})\n([=\-~^*+#\"])\2{2,}[ \t]*$", re.MULTILINE)
_RST_MARK = re.compile(r"`[^`\n]+`__?(?!\w)|^\.\. (?:[\w:-]+::|_[^:\n]+:|\[[^\]\n]*\])|``[^`\n]+``", re.MULTILINE)


def looks_like_rst(text: str) -> bool:
    """Whether plain text is reStructuredText: a title underlined to its length and a link, directive or
    inline literal in reST's syntax."""
    titled = any(len(m.group(0).split("\n")[1].rstrip()) >= len(m.group(1).rstrip()) for m in _RST_TITLE.finditer(text))
    return titled and bool(_RST_MARK.search(text))


def _markdown_html(text: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").render(text)


# Sphinx's cross-reference roles, which plain docutils does not know: their text is kept
# (":ref:`the guide <install>`" reads "the guide"); other unknown roles become error nodes, dropped
# with their own text only (directives: below).
_SPHINX_ROLES = (
    "ref doc class func meth attr mod data exc obj term envvar option program command file samp kbd "
    "menuselection guilabel abbr any py:class py:func py:meth py:attr py:mod py:obj py:data py:exc "
    "c:func c:type c:macro confval setting issue pr user"
).split()


@lru_cache(maxsize=1)
def _register_sphinx_roles() -> None:
    from docutils import nodes
    from docutils.parsers.rst import roles

    def role(name, rawtext, text, lineno, inliner, options=None, content=None):  # docutils role signature
        shown = re.sub(r"\s*<[^>]*>$", "", text).lstrip("~!") or text
        return [nodes.literal(rawtext, shown)], []

    for name in _SPHINX_ROLES:
        roles.register_local_role(name, role)
    _register_sphinx_directives()


# Sphinx's directives, which plain docutils does not know either: unknown, a directive is an error node
# and its whole content is dropped with it. mypy's config reference lost two thirds of its text, every
# option written ".. confval:: namespace_packages" with its ":default: False" and its description.
# Described objects: the signature, then what is said of it (its options as "default: False" lines).
_SPHINX_DESCRIBED = (
    "confval setting option cmdoption envvar describe object function data method attribute property "
    "exception decorator decoratormethod classmethod staticmethod type module-attribute program "
    "py:function py:data py:class py:method py:attribute py:property py:exception py:decorator "
    "py:decoratormethod py:classmethod py:staticmethod c:function c:type c:macro c:member c:var c:struct "
    "cpp:function cpp:class cpp:type cpp:member js:function js:class js:data js:attribute rst:directive "
    "rst:role rst:directive:option"
).split()
# Version notes, read as Sphinx writes them: "Changed in version 3.0.0: In this version …".
_SPHINX_VERSION_NOTES = {
    "versionadded": "New in version",
    "versionchanged": "Changed in version",
    "deprecated": "Deprecated since version",
    "versionremoved": "Removed in version",
}
# Code shown or run (its lines as a code block), and containers whose content is ordinary text.
_SPHINX_CODE = (
    "testcode testoutput testsetup testcleanup doctest ipython jupyter-execute "
    "click:example click:run productionlist prompt"
).split()
_SPHINX_CONTAINERS = (
    "only tabs tab group-tab code-tab tab-set tab-item card grid grid-item grid-item-card dropdown hlist "
    "glossary seealso todo centered"
).split()
# Nothing a reader sees: a table of contents, text pulled from code by import, settings for the build.
_SPHINX_SILENT = (
    "toctree autofunction autoclass automodule autodata automethod autoattribute autoexception autosummary "
    "autoprogram module currentmodule py:module py:currentmodule highlight index literalinclude "
    "tabularcolumns sectionauthor codeauthor moduleauthor cssclass graphviz plot"
).split()


class _AnyOptions(dict[str, Any]):
    """Every option a directive is given is kept as written (the empty key keeps the dict truthy, which
    is what makes docutils look for options at all)."""

    def __init__(self) -> None:
        super().__init__({"": None})

    def __contains__(self, key: object) -> bool:
        return True

    def __getitem__(self, key: str) -> Any:
        return lambda value: value or ""


@lru_cache(maxsize=1)
def _register_sphinx_directives() -> None:
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives

    class Sphinx(Directive):
        has_content = True
        optional_arguments = 1
        final_argument_whitespace = True
        option_spec = _AnyOptions()

        def body(self) -> list[Any]:
            box = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, box)
            return list(box.children)

        def options_list(self) -> list[Any]:
            # ":default: False" is shown; a flag such as ":noindex:" is not.
            given = {name: value for name, value in self.options.items() if value}
            if not given:
                return []
            fields = nodes.field_list()
            for name, value in given.items():
                body = nodes.field_body("", nodes.paragraph(text=value))
                fields += nodes.field("", nodes.field_name(text=name), body)
            return [fields]

    class Described(Sphinx):
        def run(self) -> list[Any]:
            signature = " ".join(self.arguments).strip()
            inner = self.options_list() + self.body()
            if not signature:
                return inner
            item = nodes.definition_list_item("", nodes.term("", "", nodes.literal(signature, signature)))
            item += nodes.definition("", *inner)
            return [nodes.definition_list("", item)]

    class VersionNote(Sphinx):
        # ".. versionchanged:: 3.0.0 In this version …": the version, then text that may run on below it.
        required_arguments = 1

        def run(self) -> list[Any]:
            lead = f"{_SPHINX_VERSION_NOTES[self.name]} {self.arguments[0]}"
            inner = self.body()
            if len(self.arguments) > 1:
                text, _ = self.state.inline_text(self.arguments[1], self.lineno)
                inner.insert(0, nodes.paragraph("", "", *text))
            if inner and isinstance(inner[0], nodes.paragraph):
                inner[0].insert(0, nodes.Text(f"{lead}: "))
                return inner
            return [nodes.paragraph(text=f"{lead}."), *inner]

    class Code(Sphinx):
        def run(self) -> list[Any]:
            code = "\n".join(self.content)
            return [nodes.literal_block(code, code)] if code.strip() else []

    class Container(Sphinx):
        def run(self) -> list[Any]:
            title = " ".join(self.arguments).strip()
            return ([nodes.paragraph(text=title)] if title else []) + self.body()

    class Silent(Sphinx):
        def run(self) -> list[Any]:
            return []

    for kind, names in (
        (Described, _SPHINX_DESCRIBED),
        (VersionNote, list(_SPHINX_VERSION_NOTES)),
        (Code, _SPHINX_CODE),
        (Container, _SPHINX_CONTAINERS),
        (Silent, _SPHINX_SILENT),
    ):
        for name in names:
            directives.register_directive(name, kind)


def _load_rst(path: Path, text: str) -> SourceDoc | Skipped:
    """reStructuredText through docutils' HTML writer."""
    parts = _rst_parts(path, text)
    if isinstance(parts, Skipped):
        return parts
    body, _ = html_blocks(parts["html_body"])
    front: dict[str, Any] = {}
    if parts.get("title"):
        from bs4 import BeautifulSoup

        front["title"] = BeautifulSoup(parts["title"], "html.parser").get_text(" ", strip=True)
    return _text_doc(path, body, front)


def _rst_parts(path: Path, text: str) -> dict[str, Any] | Skipped:
    from docutils.core import publish_parts

    _register_sphinx_roles()

    try:
        return publish_parts(
            text,
            source_path=str(path),
            writer="html5",
            settings_overrides={
                "report_level": 5,  # say nothing on stderr
                "halt_level": 5,  # never raise for bad markup
                "file_insertion_enabled": False,  # an .rst may not read other files into the corpus
                "raw_enabled": False,
                "syntax_highlight": "none",
                "math_output": "latex",  # MathJax's default would need a URL; keep the source
                "_disable_config": True,
            },
        )
    except Exception as exc:  # docutils raises its own kinds on pathological input
        return Skipped(str(path), f"unreadable reStructuredText: {type(exc).__name__}: {exc}")


# Core metadata (a wheel's METADATA, an sdist's PKG-INFO) opens with its version field.
_METADATA_START = re.compile(r"\A\s*Metadata-Version:[ \t]*\d", re.IGNORECASE)
_DESCRIPTION_TYPE = re.compile(r"^Description-Content-Type:[ \t]*([^;\s]+)", re.IGNORECASE | re.MULTILINE)


def _load_metadata(path: Path, text: str) -> SourceDoc | Skipped:
    """A package's core metadata: its `Key: value` fields stay lines as they are (the claim model reads
    each as a fact: "Requires-Python: >=3.8"), and the long description after them, the package's
    README, is rendered in the format `Description-Content-Type` declares, so its Markdown or reST
    reaches no quote ("because ``timeout`` doesn't create a new task"). An undeclared one is rendered
    as reST, the specification's fallback, only when it is written in it (looks_like_rst): read as reST,
    a plain-text description's indented lines would be quotes and its `::` code. Paramiko's METADATA
    declares nothing and was quoted as "[#] Paramiko relies on `cryptography <https://cryptography.io>`_"."""
    head, _, body = text.replace("\r\n", "\n").partition("\n\n")
    declared = _DESCRIPTION_TYPE.search(head)
    kind = declared.group(1).lower() if declared and body.strip() else ""
    if not declared and looks_like_rst(body):
        kind = "text/x-rst"
    if kind == "text/markdown":
        body, _ = html_blocks(_markdown_html(body))
    elif kind == "text/x-rst":
        parts = _rst_parts(path, body)
        if not isinstance(parts, Skipped):
            body, _ = html_blocks(parts["html_body"])
    return _text_doc(path, f"{head}\n\n{body}" if body else head, {})


_BLOCK_TAGS = [
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "p",
    "li",
    "pre",
    "blockquote",
    "td",
    "th",
    "dt",
    "dd",
    "figcaption",
    "caption",
]
_DATE_META = [
    "article:published_time",
    "datePublished",
    "date",
    "dc.date",
    "DC.date.issued",
    "citation_publication_date",
    "og:published_time",
    "pubdate",
]


_HIDING_STYLE = re.compile(
    r"display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?![.\d])|opacity\s*:\s*0(?![.\d])"
)


def _is_hidden(tag: Any) -> bool:
    if tag.attrs is None:
        return False
    return (
        tag.has_attr("hidden")
        or str(tag.get("aria-hidden", "")).lower() == "true"
        or (tag.name == "input" and str(tag.get("type", "")).lower() == "hidden")
        or bool(_HIDING_STYLE.search(str(tag.get("style", "")).lower()))
    )


def visible_html(html: str) -> Any:
    """The page as a reader sees it (a BeautifulSoup tree): no scripts, styles, navigation, comments or
    hidden elements."""
    from bs4 import BeautifulSoup, Comment, NavigableString

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "svg", "nav", "footer"]):
        tag.decompose()
    for tag in soup.select(".system-message, .problematic, .headerlink, .copybtn"):
        tag.decompose()  # docutils' complaints about markup it does not know; Sphinx's ¶ links
    # A footnote's "[1]" in the text, which an answer would show as one of its own citations (and the
    # space before it, where punctuation follows: "the SSHv2 protocol [1], providing").
    for tag in soup.select(".footnote-reference, [role=doc-noteref]"):
        before, after = tag.previous_sibling, tag.next_sibling
        if isinstance(before, NavigableString) and isinstance(after, NavigableString) and after[:1] in ",.;:)":
            before.replace_with(before.rstrip())
        tag.decompose()
    # What a reader of the page never sees is not evidence: hidden text is where injected instructions
    # and keyword stuffing live.
    for comment in soup.find_all(string=lambda s: isinstance(s, Comment)):
        comment.extract()
    for tag in soup.find_all(_is_hidden):
        tag.decompose()
    return soup


def html_head(soup: Any) -> dict[str, Any]:
    """What a page's head says: its title and its date (meta tags, else the first <time datetime>)."""
    front: dict[str, Any] = {}
    if soup.title and soup.title.get_text(strip=True):
        front["title"] = soup.title.get_text(" ", strip=True)
    for meta in soup.find_all("meta"):
        key = meta.get("property") or meta.get("name") or meta.get("itemprop")
        if key in _DATE_META and meta.get("content") and "date" not in front:
            front["date"] = meta["content"]
            front["date_source"] = "html meta"
    if "date" not in front:
        t = soup.find("time", attrs={"datetime": True})
        if t:
            front["date"] = t["datetime"]
            front["date_source"] = "html meta"
    return front


def _block_text(el: Any) -> str:
    """One block with no block inside it, as text: a heading as a Markdown heading; code with its lines."""
    if el.name == "pre":  # code keeps its lines; blank lines inside would split it into blocks
        lines = [ln.rstrip() for ln in el.get_text().splitlines()]
        return "\n".join(ln for ln in lines if ln.strip())
    # Inline tags join as the page shows them ("<b>Note</b>:" is "Note:"), line breaks as spaces.
    txt = " ".join(el.get_text().split())
    if txt and el.name in {"h1", "h2", "h3", "h4", "h5", "h6"}:
        return "#" * int(el.name[1]) + " " + txt
    return txt


# A list item is read whole even with a list inside: split, a table of contents became one block per
# entry, and a bare entry ("dns.lookupService(address, port, callback)") was quoted as an answer
# (realdocs4 h12).
_WHOLE = frozenset({"li"})


def _walk_blocks(node: Any, parts: list[str], keep_loose: bool) -> None:
    """The blocks under `node` in document order. A block holding other blocks (a layout table's cell
    with a heading and a list in it) is not taken whole, which ran its menu, heading and items into one
    "sentence" ("SymbolsSee the git page … v1.1.35: Feb 16 2022 Security: …"): its inner blocks are
    blocks of their own and its loose text between them another. Loose text outside any block (in a
    page's divs: menus, bylines) is left out, as before."""
    from bs4 import Tag

    run: list[str] = []

    def flush() -> None:
        txt = " ".join("".join(run).split())
        if txt and keep_loose:
            parts.append(txt)
        run.clear()

    for child in node.children:
        if not isinstance(child, Tag):
            run.append(str(child))
        elif child.find(_BLOCK_TAGS) is not None and child.name not in _WHOLE:  # a container, or a cell of blocks
            flush()
            _walk_blocks(child, parts, keep_loose or child.name in _BLOCK_TAGS)
        elif child.name in _BLOCK_TAGS:
            flush()
            txt = _block_text(child)
            if txt:
                parts.append(txt)
        else:
            run.append(child.get_text())
    flush()


def _join_fields(soup: Any) -> None:
    """A field list's name and its one-paragraph value as one line, as the page shows them side by side:
    "default: False", not a block "default:" and a block "False" (docutils' and Sphinx's
    `<dl class="field-list">`: a reST field list, a Sphinx option's type and default)."""
    for dl in soup.select("dl.field-list"):
        for dt in dl.find_all("dt", recursive=False):
            dd = dt.find_next_sibling()
            if dd is None or dd.name != "dd":
                continue
            blocks = dd.find_all(_BLOCK_TAGS)
            if len(blocks) > 1 or (blocks and blocks[0].name != "p"):
                continue
            name, value = " ".join(dt.get_text().split()), " ".join(dd.get_text().split())
            p = soup.new_tag("p")
            p.string = f"{name} {value}" if value else name
            dt.replace_with(p)
            dd.decompose()


def html_blocks(html: str) -> tuple[str, dict[str, Any]]:
    """The blocks of an HTML page as text (headings as Markdown headings, code blocks with their line
    breaks) and what its head says (title, date)."""
    soup = visible_html(html)
    for br in soup.find_all("br"):
        br.replace_with("\n")
    _join_fields(soup)
    front = html_head(soup)
    parts: list[str] = []
    root = soup.body or soup
    _walk_blocks(root, parts, keep_loose=False)
    if not parts:  # no block markup: take the plain text
        parts = [re.sub(r"[ \t]+", " ", root.get_text("\n", strip=True))]
    return "\n\n".join(p for p in _dated_headings(parts) if p), front


def _dated_headings(parts: list[str]) -> list[str]:
    """A paragraph that is only a date, right under a heading, is the heading's: a changelog's
    "23.4.0 / ------ / *(November 7, 2023)*" is the release line "## 23.4.0 (November 7, 2023)". Alone it
    was a fact of its own, "(November 7, 2023)", quoted for any release's date."""
    out: list[str] = []
    for part in parts:
        spans = written_dates(part)
        if (
            out
            and out[-1].startswith("#")
            and "\n" not in out[-1]
            and len(spans) == 1
            and not re.search(r"\w", part[: spans[0][0]] + part[spans[0][1] :])
        ):
            out[-1] = f"{out[-1]} {part}"
        else:
            out.append(part)
    return out


def _load_html(path: Path, html: str) -> SourceDoc | Skipped:
    text, front = html_blocks(html)
    return _text_doc(path, text, front)


def _load_docx(path: Path, data: bytes) -> SourceDoc | Skipped:
    """A Word document: its paragraphs (headings by style, as Markdown headings) and table rows."""
    import io
    import zipfile

    try:
        import docx

        d = docx.Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        return Skipped(str(path), f"corrupt .docx: {exc}")
    except Exception as exc:  # python-docx raises many kinds on damaged files
        return Skipped(str(path), f"corrupt .docx: {type(exc).__name__}: {exc}")
    from docx.document import Document as _Document
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    parts: list[str] = []
    body: _Document = d
    for item in body.iter_inner_content():
        if isinstance(item, Paragraph):
            txt = " ".join(item.text.split())
            style = (item.style.name if item.style is not None else "") or ""
            m = re.match(r"Heading (\d)", style)
            if txt and m:
                parts.append("#" * min(6, int(m.group(1))) + " " + txt)
            elif txt and style == "Title":
                parts.append("# " + txt)
            elif txt:
                parts.append(txt)
        elif isinstance(item, Table):
            for row in item.rows:
                cells = list(dict.fromkeys(" ".join(c.text.split()) for c in row.cells))
                if any(cells):
                    parts.append(" | ".join(cells))
    front: dict[str, Any] = {}
    props = d.core_properties
    if props.title:
        front["title"] = props.title
    if props.created:
        front["file_date"] = props.created.date().isoformat()
    return _text_doc(path, "\n\n".join(parts), front)


# A word of pypdf's layout text that may run words together at a font switch: groff and TeX set an
# acronym or a placeholder in another font ("the BFD library", "-f FILE", "In GNU patch,"), and layout
# mode loses the space there ("theBFDlibrary", "-fFILE", "InGNUpatch,").
_FONT_SWITCH = re.compile(r"\S*(?:[a-z][A-Z]{2}|[A-Z]{2}[a-z])\S*")


def _caps(word: str) -> bool:
    letters = [c for c in word if c.isalpha()]
    return len(letters) >= 2 and all(c.isupper() for c in letters)


def _font_switch(left: str, right: str) -> bool:
    """Whether two words pypdf's plain text writes apart meet at a change of case that a font switch
    explains: a lowercase word or an option, then a word in capitals ("the BFD", "-f FILE"), or the
    reverse ("BFD library"). Not one capital letter ("Y es" is pypdf's kerning of "Yes")."""
    capitals = re.sub(r"[^A-Z0-9_].*", "", right, flags=re.DOTALL)  # the capitals "right" opens with
    return (left[-1:].islower() and _caps(capitals)) or (_caps(left) and right[:1].islower())


def respace_font_switches(layout: str, plain: str) -> str:
    """Put back the spaces layout mode loses at a font switch, where pypdf's plain text of the same page
    has them: a layout word is split only as the plain text writes it, two or three words that meet at
    a change of case (`_font_switch`). The plain text is not used whole: it splits words at kerning
    ("dif ferent", "F or") that layout mode keeps whole."""
    words = plain.split()
    apart: dict[str, list[str]] = {}
    for n in (2, 3):
        for i in range(len(words) - n + 1):
            parts = words[i : i + n]
            if all(_font_switch(a, b) for a, b in itertools.pairwise(parts)):
                apart.setdefault("".join(parts), parts)
    known = set(words)

    def respace(m: re.Match[str]) -> str:
        word = m.group(0)
        return word if word in known or word not in apart else " ".join(apart[word])

    return _FONT_SWITCH.sub(respace, layout)


def _load_pdf(path: Path, data: bytes) -> SourceDoc | Skipped:
    """Text in pypdf's layout mode (it keeps indentation and most words whole; the spaces it loses at a
    font switch put back: respace_font_switches), cut into blocks where
    the indentation steps back (a man page's option list, paragraphs), running headers and footers
    left out (the date a footer states is read first), then repaired (repair_pdf_text)."""
    import io

    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            return Skipped(str(path), "encrypted PDF")
        layout = []
        for page in reader.pages:
            text = page.extract_text(extraction_mode="layout") or ""
            if _FONT_SWITCH.search(text):
                text = respace_font_switches(text, page.extract_text() or "")
            layout.append(_normalise(text))
        info: Any = reader.metadata or {}
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return Skipped(str(path), f"corrupt PDF: {exc}")
    except Exception as exc:  # pypdf raises many kinds on damaged files
        return Skipped(str(path), f"corrupt PDF: {type(exc).__name__}: {exc}")
    stated = stated_date("\n".join(layout))
    raw = _strip_running_lines([_layout_blocks(page) for page in layout])
    if not any(raw):
        return Skipped(str(path), "PDF has no extractable text (scanned images?)")
    whole = "\n".join(raw)
    vocabulary, pairs = Counter(_WORDS.findall(whole.lower())), split_pairs(whole)
    written = set(_WORDS.findall(whole))
    pages = [repair_pdf_text(page, vocabulary, pairs, written) for page in raw]
    text, starts = "", []
    for page_text in pages:
        if text:
            text += "\n\n"
        starts.append(len(text))
        text += page_text
    front: dict[str, Any] = {}
    title = info.get("/Title") if hasattr(info, "get") else None
    if title:
        front["title"] = str(title)
    created = info.get("/CreationDate") if hasattr(info, "get") else None
    m = re.match(r"D:(\d{4})(\d{2})?(\d{2})?", str(created or ""))
    if stated:  # read before the running footer that states it was left out
        front["date"], front["date_source"] = stated.isoformat(), "text"
    elif m:  # "D:20210301120000Z": when the file was made; used only when the text states no date
        front["file_date"] = "-".join(g for g in m.groups() if g)
    doc = _text_doc(path, text, front)
    if isinstance(doc, SourceDoc):
        doc.pages = starts
        doc.metadata["n_pages"] = len(pages)
        doc.content_hash = ""
        doc.__post_init__()
    return doc


def _layout_blocks(page: str) -> str:
    """A page in layout mode as blocks: spaces inside a line collapsed, a blank line where the
    indentation steps back or the page leaves one (unless the page leaves one after nearly every
    line: double-spaced text, whose paragraphs only the indentation shows)."""
    out: list[str] = []
    prev: int | None = None
    lines = page.splitlines()
    text_lines = sum(1 for ln in lines if ln.strip())
    single_blanks = sum(
        1 for i in range(1, len(lines) - 1) if not lines[i].strip() and lines[i - 1].strip() and lines[i + 1].strip()
    )
    double_spaced = text_lines > 2 and single_blanks >= 0.8 * (text_lines - 1)
    for i, line in enumerate(lines):
        if not line.strip():
            single = 0 < i < len(lines) - 1 and lines[i - 1].strip() and lines[i + 1].strip()
            if double_spaced and single:
                continue
            if out and out[-1]:
                out.append("")
            prev = None
            continue
        indent = len(line) - len(line.lstrip())
        if prev is not None and indent < prev - 1 and out and out[-1]:
            out.append("")
        out.append(" ".join(line.split()))
        prev = indent
    return "\n".join(out).strip()


def _running_key(line: str) -> str:
    return re.sub(r"\d+", "#", " ".join(line.split()).lower())


_MAN_HEADER = re.compile(r"^(\S+\(\w+\)) .* \1$")


def _strip_running_lines(pages: list[str]) -> list[str]:
    """Pages without their running header and footer: a first or last line that recurs (numbers
    aside) on most pages, or a man page's "TAR(1) … TAR(1)" header."""
    firsts = Counter(_running_key(p.splitlines()[0]) for p in pages if p)
    lasts = Counter(_running_key(p.splitlines()[-1]) for p in pages if p)
    need = max(2, (len(pages) + 1) // 2)
    out = []
    for page in pages:
        lines = page.splitlines()
        if lines and (firsts[_running_key(lines[0])] >= need or _MAN_HEADER.match(lines[0])):
            lines = lines[1:]
        if lines and lasts[_running_key(lines[-1])] >= need:
            lines = lines[:-1]
        out.append("\n".join(lines).strip())
    return out


# -- JSONL (BEIR corpus) --------------------------------------------------------------------------
def _load_jsonl(path: Path) -> LoadedFile:
    docs: list[SourceDoc] = []
    skipped: list[Skipped] = []
    with path.open("rb") as fh:
        for lineno, raw in enumerate(fh, 1):
            if not raw.strip():
                continue
            where = f"{path}:{lineno}"
            try:
                rec = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                skipped.append(Skipped(where, f"invalid JSON: {exc}"))
                continue
            if not isinstance(rec, dict):
                skipped.append(Skipped(where, "a line must be a JSON object"))
                continue
            doc_or_skip = _record_doc(rec, where)
            (docs if isinstance(doc_or_skip, SourceDoc) else skipped).append(doc_or_skip)  # type: ignore[arg-type]
    if not docs and not skipped:
        skipped.append(Skipped(str(path), "empty file"))
    return LoadedFile(path, docs, skipped)


def load_records(records: Iterable[dict[str, Any]], source: str) -> LoadedFile:
    """Documents that come from no file (a LangChain loader's output), as records of the BEIR JSONL
    format (`_id`, `text`, optional `title`, `date`, `source_tier`, `url`, and any other metadata),
    read exactly as a .jsonl file's lines are; `source` names the group where a file name would be."""
    docs: list[SourceDoc] = []
    skipped: list[Skipped] = []
    for n, rec in enumerate(records, 1):
        doc_or_skip = _record_doc(dict(rec), f"{source}#{n}")
        (docs if isinstance(doc_or_skip, SourceDoc) else skipped).append(doc_or_skip)  # type: ignore[arg-type]
    return LoadedFile(Path(source), docs, skipped)


def _record_doc(rec: dict[str, Any], where: str) -> SourceDoc | Skipped:
    rec = dict(rec)
    doc_id = rec.pop("_id", None) or rec.pop("id", None)
    if doc_id is None or str(doc_id).strip() == "":
        return Skipped(where, "record has no _id")
    text = rec.pop("text", None)
    if not isinstance(text, str) or not text.strip():
        return Skipped(where, f"record {doc_id!r} has no text")
    raw_date = rec.pop("date", None)
    date = parse_date(raw_date)
    if raw_date not in (None, "") and date is None:
        return Skipped(where, f"record {doc_id!r} has an unparseable date {raw_date!r}")
    tier = str(rec.pop("source_tier", DEFAULT_TIER) or DEFAULT_TIER)
    title = str(rec.pop("title", "") or "")
    source = str(rec.pop("url", "") or where)
    return SourceDoc(
        doc_id=str(doc_id),
        title=title,
        text=_normalise(text),
        source=source,
        date=date.isoformat() if date else None,
        source_tier=tier,
        metadata=_scalars(rec),
    )


def _scalars(d: dict[str, Any]) -> dict[str, Any]:
    """Metadata values as JSON scalars (dates and lists become strings)."""
    out: dict[str, Any] = {}
    for k, v in d.items():
        if v is None or isinstance(v, bool | int | float | str):
            out[str(k)] = v
        else:
            out[str(k)] = json.dumps(v, default=str) if isinstance(v, list | dict) else str(v)
    return out


def iter_files(files: list[Path]) -> Iterator[LoadedFile]:
    for f in files:
        yield load_file(f)
