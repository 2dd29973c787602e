"""Loaders: files on disk to `SourceDoc` records (text + metadata), or a `Skipped` with the reason.

Formats: .txt, .md (YAML front matter: title, date, source_tier, url), .html/.htm (title, date from
meta tags, headings kept as Markdown headings so chunking can follow them), .pdf (one block per
page; the page start offsets are kept so a citation can name its page) and .jsonl in BEIR corpus
format (`_id`, `title`, `text`, optional `date`, `source_tier`, `url`, anything else as metadata).

A loader never raises for bad input: an unreadable, empty, binary or corrupt file (or JSONL line)
becomes a `Skipped` that the ingest summary reports.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from citegraph.text.dates import parse_date

SUPPORTED = {".txt", ".md", ".markdown", ".html", ".htm", ".pdf", ".jsonl"}
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
            problems.append(Skipped(str(raw), "no such file or folder"))
            continue
        if p.is_dir():
            for f in sorted(p.rglob("*")):
                if not f.is_file() or any(part.startswith(".") for part in f.relative_to(p).parts):
                    continue
                (files if f.suffix.lower() in SUPPORTED else ignored).append(f)
        elif p.suffix.lower() in SUPPORTED:
            files.append(p)
        else:
            problems.append(Skipped(str(raw), f"unsupported file type {p.suffix or '(none)'}"))
    unique = []
    for f in files:
        r = f.resolve()
        if r not in seen:
            seen.add(r)
            unique.append(r)
    return unique, problems, ignored


def file_doc_id(path: Path) -> str:
    """Stable id of a file's document: a readable slug of its name plus a hash of its full path."""
    slug = re.sub(r"[^a-z0-9]+", "-", path.stem.lower()).strip("-")[:40] or "doc"
    return f"{slug}-{hashlib.sha1(str(path.resolve()).encode()).hexdigest()[:8]}"


def load_file(path: Path) -> LoadedFile:
    suffix = path.suffix.lower()
    try:
        if suffix == ".jsonl":
            return _load_jsonl(path)
        if suffix == ".pdf":
            doc_or_skip = _load_pdf(path)
        else:
            data = path.read_bytes()
            text = _decode(data)
            if text is None:
                doc_or_skip = Skipped(str(path), "binary or undecodable file (not UTF-8 text)")
            elif suffix in {".html", ".htm"}:
                doc_or_skip = _load_html(path, text)
            elif suffix in {".md", ".markdown"}:
                doc_or_skip = _load_markdown(path, text)
            else:
                doc_or_skip = _text_doc(path, text, {})
    except OSError as exc:
        doc_or_skip = Skipped(str(path), f"unreadable: {exc.strerror or exc}")
    if isinstance(doc_or_skip, Skipped):
        return LoadedFile(path, [], [doc_or_skip])
    return LoadedFile(path, [doc_or_skip], [])


# -- text formats ---------------------------------------------------------------------------------
def _decode(data: bytes) -> str | None:
    if b"\x00" in data[:8192]:
        return None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    from charset_normalizer import from_bytes

    best = from_bytes(data).best()
    return str(best) if best is not None else None


def _normalise(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").replace("\x0c", "\n\n")
    return re.sub(r"[ \t]+\n", "\n", text)


def _text_doc(path: Path, text: str, front: dict[str, Any]) -> SourceDoc | Skipped:
    text = _normalise(text)
    if not text.strip():
        return Skipped(str(path), "empty file")
    title = str(front.pop("title", "") or "") or _first_heading(text) or path.stem
    date = parse_date(front.pop("date", None))
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


def _first_heading(text: str) -> str | None:
    for line in text.splitlines():
        s = line.strip()
        if s:
            return s.lstrip("#").strip()[:200] if s.startswith("#") else None
    return None


_FRONT = re.compile(r"\A---\s*\n(.*?)\n---\s*\n", re.DOTALL)


def _load_markdown(path: Path, text: str) -> SourceDoc | Skipped:
    front: dict[str, Any] = {}
    m = _FRONT.match(text)
    if m:
        try:
            parsed = yaml.safe_load(m.group(1))
        except yaml.YAMLError as exc:
            return Skipped(str(path), f"invalid YAML front matter: {str(exc).splitlines()[0]}")
        if isinstance(parsed, dict):
            front = {str(k).lower(): v for k, v in parsed.items()}
        text = text[m.end() :]
    return _text_doc(path, text, front)


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


def _load_html(path: Path, html: str) -> SourceDoc | Skipped:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(html, "html.parser")
    for tag in soup(["script", "style", "noscript", "template", "svg", "nav", "footer"]):
        tag.decompose()
    front: dict[str, Any] = {}
    if soup.title and soup.title.get_text(strip=True):
        front["title"] = soup.title.get_text(" ", strip=True)
    for meta in soup.find_all("meta"):
        key = meta.get("property") or meta.get("name") or meta.get("itemprop")
        if key in _DATE_META and meta.get("content") and "date" not in front:
            front["date"] = meta["content"]
    if "date" not in front:
        t = soup.find("time", attrs={"datetime": True})
        if t:
            front["date"] = t["datetime"]
    parts: list[str] = []
    root = soup.body or soup
    for el in root.find_all(_BLOCK_TAGS):
        if el.find_parent(_BLOCK_TAGS):  # nested inside another block: its parent carries its text
            continue
        txt = re.sub(r"\s+", " ", el.get_text(" ", strip=True))
        if not txt:
            continue
        if el.name in {"h1", "h2", "h3", "h4", "h5", "h6"}:
            parts.append("#" * int(el.name[1]) + " " + txt)
        else:
            parts.append(txt)
    if not parts:  # no block markup: take the plain text
        parts = [re.sub(r"[ \t]+", " ", root.get_text("\n", strip=True))]
    return _text_doc(path, "\n\n".join(p for p in parts if p), front)


def _load_pdf(path: Path) -> SourceDoc | Skipped:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(str(path))
        if reader.is_encrypted and not reader.decrypt(""):
            return Skipped(str(path), "encrypted PDF")
        pages = [(_normalise(page.extract_text() or "")).strip() for page in reader.pages]
        info: Any = reader.metadata or {}
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError) as exc:
        return Skipped(str(path), f"corrupt PDF: {exc}")
    except Exception as exc:  # pypdf raises many kinds on damaged files
        return Skipped(str(path), f"corrupt PDF: {type(exc).__name__}: {exc}")
    if not any(pages):
        return Skipped(str(path), "PDF has no extractable text (scanned images?)")
    text, starts = "", []
    for page in pages:
        if text:
            text += "\n\n"
        starts.append(len(text))
        text += page
    front: dict[str, Any] = {}
    title = info.get("/Title") if hasattr(info, "get") else None
    if title:
        front["title"] = str(title)
    date = info.get("/CreationDate") if hasattr(info, "get") else None
    if date:  # "D:20210301120000Z"
        m = re.match(r"D:(\d{4})(\d{2})?(\d{2})?", str(date))
        if m:
            front["date"] = "-".join(g for g in m.groups() if g)
    doc = _text_doc(path, text, front)
    if isinstance(doc, SourceDoc):
        doc.pages = starts
        doc.metadata["n_pages"] = len(pages)
        doc.content_hash = ""
        doc.__post_init__()
    return doc


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
