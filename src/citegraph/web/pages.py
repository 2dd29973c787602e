"""A fetched page as a document record, read like a local file: its main text (trafilatura drops the
menus, sidebars and footers around it), its title, and its date with where the date came from.

The date, in order of trust: the page's own meta tags (as for a local HTML file), the publication
metadata trafilatura's date finder (htmldate) reads without guessing from the page's text, the date
the search provider gave for the result, a date the text states near its top; else the page is
undated (never the time it was fetched: that says nothing of what the page describes).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from citegraph.ingest.loaders import html_head, visible_html
from citegraph.text.dates import parse_date, stated_date
from citegraph.web.fetch import Fetched
from citegraph.web.search import WebResult

# Web pages are tertiary sources unless the operator says otherwise: when a page and a document of the
# corpus disagree, source tier weighs before recency (DESIGN.md, "Conflicts").
WEB_TIER = "tertiary"


_PAGE_ID = "web-"


def page_id(url: str) -> str:
    return _PAGE_ID + hashlib.sha256(url.encode()).hexdigest()[:16]


def is_web_page(doc_id: str) -> bool:
    return doc_id.startswith(_PAGE_ID)


# trafilatura's tree of the main content: these elements are blocks of their own; anything else at the
# top (code, emphasis, links) runs on with the text around it, paragraphs split at blank lines.
_BLOCKS = {"p", "head", "quote", "pre", "list", "table"}


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _blocks(body: Any) -> list[str]:
    """The main content's blocks as plain text: a paragraph a block (its source line breaks joined),
    a heading as a Markdown heading (chunking follows them), a list item or table row a block."""
    out: list[str] = []
    loose: list[str] = [body.text or ""]

    def flush() -> None:
        out.extend(b for b in (_one_line(part) for part in re.split(r"\n\s*\n", "".join(loose))) if b)
        loose.clear()

    for el in body:
        if el.tag in _BLOCKS:
            flush()
            if el.tag == "head":
                level = int(str(el.get("rend", "h2"))[1:] or 2) if str(el.get("rend", "")).startswith("h") else 2
                out.append("#" * min(max(level, 1), 6) + " " + _one_line("".join(el.itertext())))
            elif el.tag == "pre":
                out.append("\n".join(ln.rstrip() for ln in "".join(el.itertext()).splitlines() if ln.strip()))
            elif el.tag in ("list", "table"):
                rows = el.iter("item") if el.tag == "list" else el.iter("row")
                out.extend(t for t in (_one_line(" ".join(r.itertext())) for r in rows) if t)
            else:
                out.append(_one_line("".join(el.itertext())))
        else:
            loose.append("".join(el.itertext()))
        loose.append(el.tail or "")
    flush()
    return [b for b in out if b.strip("# ")]


def _main_text(html: str, url: str) -> tuple[str, str | None]:
    """(text, title) of the page's main content; "" when trafilatura finds none."""
    import trafilatura

    doc = trafilatura.bare_extraction(html, url=url, with_metadata=True, include_comments=False, include_tables=True)
    body = getattr(doc, "body", None)  # a Document (as_dict is off)
    if body is None:
        return "", None
    return "\n\n".join(_blocks(body)), getattr(doc, "title", None)


def _declared_date(html: str, url: str) -> str | None:
    """The publication date the page declares in its metadata (JSON-LD, Open Graph, its URL's path), by
    htmldate without its extensive search, which guesses from any date in the text (a 2001 copyright
    line dated a 2022 page 2001-01-01)."""
    from htmldate import find_date

    try:
        return find_date(html, url=url, extensive_search=False, original_date=True)
    except (ValueError, TypeError):
        return None


def page_record(page: Fetched, result: WebResult) -> dict[str, Any] | None:
    """The page as a corpus record (loaders.load_records' format), or None when it has no text."""
    if page.content_type == "text/plain":
        text, title, meta_date = page.text, None, None
        front: dict[str, Any] = {}
    else:
        soup = visible_html(page.text)
        front = html_head(soup)
        meta_date = None if front.get("date") else _declared_date(page.text, page.url)
        text, title = _main_text(str(soup), page.url)
        if not text.strip():  # no main content found: the page's visible text, block by block
            text = "\n\n".join(line.strip() for line in soup.get_text("\n").splitlines() if line.strip())
    if not text.strip():
        return None
    date, source = parse_date(front.get("date")), "html meta"
    for candidate, where in ((meta_date, "page metadata"), (result.published, "search result")):
        if date is None:
            date, source = parse_date(candidate), where
    if date is None:
        date, source = stated_date(text), "text"
    record: dict[str, Any] = {
        "_id": page_id(page.url),
        "text": text,
        "title": (front.get("title") or title or result.title or page.url)[:300],
        "url": page.url,
        "source_tier": WEB_TIER,
        "searched_url": result.url,
    }
    if date is not None:
        record["date"] = date.isoformat()
        record["date_source"] = source
    return record
