"""A fetched page as a document record, read like a local HTML file: its text without the page's frame
(header, menus, sidebars, footer) or anything hidden, its title, and its date with where the date came from.

The date, in order of trust: the page's own meta tags (as for a local HTML file), the publication
metadata htmldate reads without guessing from the page's text (JSON-LD, Open Graph, the URL), the date
the search provider gave for the result, a date the text states near its top; else the page is
undated (never the time it was fetched: that says nothing of what the page describes).
"""

from __future__ import annotations

import hashlib
from typing import Any

from citegraph.ingest.loaders import DEFAULT_TIER, html_blocks, html_head, visible_html
from citegraph.text.dates import parse_date, stated_date
from citegraph.web.fetch import Fetched
from citegraph.web.search import WebResult

# A page's text beyond this is not read: embedding it is the web step's main cost (a 212,000-character
# news page took most of a question's 20-40 s here), and a page puts what it is about first (a news page
# its latest release). The record says when a page was cut.
MAX_PAGE_CHARS = 100_000

# A page says nothing of its tier, like a file that has no front matter: the default tier. (As tertiary,
# any file of the corpus would outrank a page in a conflict, and an old document's value would settle
# a recent question against this year's page; conflicts are settled by agreement, then tier, then date.)
WEB_TIER = DEFAULT_TIER


_PAGE_ID = "web-"


def page_id(url: str) -> str:
    return _PAGE_ID + hashlib.sha256(url.encode()).hexdigest()[:16]


def is_web_page(doc_id: str) -> bool:
    return doc_id.startswith(_PAGE_ID)


# What frames a page's content rather than being part of it (visible_html already drops <nav> and
# <footer>): the site's header, sidebars, forms, and the same regions marked by ARIA role.
_CHROME = (
    "header, aside, form, [role=navigation], [role=banner], [role=contentinfo], [role=complementary], [role=search]"
)


def _main_text(soup: Any) -> str:
    """The page's content as blocks of text, read as a local HTML file is (ingest/loaders.html_blocks),
    without the page's frame. trafilatura's main-text extraction was tried and measured first: on
    documentation pages it lost the prose (GCC 12's NEWS page: 5.8 KB kept of 52 KB, inline code made
    blocks of their own, the sentences around them dropped) and ran release notes' lines together."""
    for tag in soup.select(_CHROME):
        tag.decompose()
    return html_blocks(str(soup))[0]


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
        text, meta_date = page.text, None
        front: dict[str, Any] = {}
    else:
        soup = visible_html(page.text)  # hidden text is no evidence, on the web least of all
        front = html_head(soup)
        meta_date = None if front.get("date") else _declared_date(page.text, page.url)
        text = _main_text(soup)
    if not text.strip():
        return None
    whole = len(text)
    if whole > MAX_PAGE_CHARS:  # cut at a block's end, so no sentence is cut in two
        cut = text.rfind("\n\n", 0, MAX_PAGE_CHARS)
        text = text[: cut if cut > 0 else MAX_PAGE_CHARS]
    date, source = parse_date(front.get("date")), "html meta"
    for candidate, where in ((meta_date, "page metadata"), (result.published, "search result")):
        if date is None:
            date, source = parse_date(candidate), where
    if date is None:
        date, source = stated_date(text), "text"
    record: dict[str, Any] = {
        "_id": page_id(page.url),
        "text": text,
        "title": (front.get("title") or result.title or page.url)[:300],
        "url": page.url,
        "source_tier": WEB_TIER,
        "searched_url": result.url,
    }
    if len(text) < whole:
        record["cut_from_chars"] = whole
    if date is not None:
        record["date"] = date.isoformat()
        record["date_source"] = source
    return record
