"""The web half of recent mode, for one sub-query: search (with the freshness filter), read the top
pages, and put them in the web corpus, where they are chunked, embedded and indexed by the same
ingest as the user's files; the caller then ranks their passages with the same retriever.

Bounded per sub-query: one search request and at most `pages` page reads (plus one robots.txt per
site), each with its timeout. Search results and pages are cached on disk (cache.py): a repeat within
the age limit sends no request; offline, only the cache is read, whatever its age.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

import httpx

from citegraph.context import WebSettings
from citegraph.ingest.loaders import load_records
from citegraph.ingest.pipeline import ingest
from citegraph.store.corpus import CorpusError
from citegraph.web.cache import WebCache
from citegraph.web.fetch import Fetcher, FetchError, FetchPolicy
from citegraph.web.pages import page_record
from citegraph.web.search import Query, SearchError, WebResult, search

# The web corpus is written and read by one sub-query at a time in this process (they run in parallel):
# an ingest reopens the shared retriever, which must not close under another sub-query's search.
web_corpus_lock = threading.Lock()


@dataclass
class Gathered:
    doc_ids: list[str] = field(default_factory=list)  # the pages read, in the search's order
    results: list[WebResult] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # why a page, or the search, gave nothing
    requests: int = 0  # search and page requests sent (robots.txt not counted)
    cached: int = 0  # answered from the cache
    seconds: float = 0.0
    # Where the time went: the search, reading the pages (fetch and extract), storing them (chunk, embed, index).
    phases_s: dict[str, float] = field(default_factory=dict)


def _search(cfg: WebSettings, cache: WebCache, client: httpx.Client | None, q: Query, out: Gathered) -> list[WebResult]:
    key = f"{cfg.provider} {cfg.base_url} {q.text!r} {q.count} {q.since} {q.until}"
    hit = cache.get("search", key, any_age=cfg.offline)
    if hit is not None:
        out.cached += 1
        return [WebResult(**r) for r in hit]
    if client is None:
        out.notes.append("offline: this search is not in the cache")
        return []
    out.requests += 1
    results = search(client, cfg.provider, cfg.base_url, cfg.api_key, q)
    cache.put("search", key, [r.as_dict() for r in results])
    return results


def _page(
    cfg: WebSettings, cache: WebCache, fetcher: Fetcher | None, r: WebResult, out: Gathered
) -> dict[str, Any] | None:
    hit = cache.get("page", r.url, any_age=cfg.offline)
    if hit is not None:
        out.cached += 1
        return hit or None  # {}: read before and found without text
    if fetcher is None:
        out.notes.append(f"offline: {r.url} is not in the cache")
        return None
    out.requests += 1
    record = page_record(fetcher.fetch(r.url), r)
    cache.put("page", r.url, record or {})
    if record is None:
        out.notes.append(f"no text in {r.url}")
    elif "cut_from_chars" in record:
        out.notes.append(f"{r.url}: read its first {len(record['text']):,} of {record['cut_from_chars']:,} characters")
    return record


def gather(cfg: WebSettings, q: Query, pages: int) -> Gathered:
    """Search, read the top `pages` results that can be read, and store them in the web corpus."""
    started = time.perf_counter()
    out = Gathered()
    cache = WebCache(cfg.cache_dir, cfg.cache_hours * 3600)
    policy = FetchPolicy(cfg.timeout_s, int(cfg.max_page_mb * 1024 * 1024), cfg.allow_private)
    client = None if cfg.offline else httpx.Client(timeout=cfg.timeout_s, follow_redirects=False)
    records: list[dict[str, Any]] = []
    try:
        try:
            out.results = _search(cfg, cache, client, q, out)
        except SearchError as e:
            out.notes.append(f"search failed: {e}")
        out.phases_s["search"] = round(time.perf_counter() - started, 3)
        fetcher = Fetcher(client, policy) if client is not None else None
        for r in out.results:
            if len(records) == pages:
                break
            try:
                record = _page(cfg, cache, fetcher, r, out)
            except FetchError as e:
                out.notes.append(str(e))
                continue
            if record and record["_id"] not in {x["_id"] for x in records}:
                records.append(record)
    finally:
        if client is not None:
            client.close()
    out.phases_s["pages"] = round(time.perf_counter() - started - out.phases_s["search"], 3)
    if records:
        stored = time.perf_counter()
        try:
            with web_corpus_lock:
                report = ingest([], cfg.corpus_dir, records=[load_records(records, "web")])
            out.notes += [f"{s.source}: {s.reason}" for s in report.skipped]
            out.doc_ids = [str(r["_id"]) for r in records]
        except CorpusError as e:  # another process is writing the web corpus
            out.notes.append(f"the web corpus could not be written: {e}")
        out.phases_s["store"] = round(time.perf_counter() - stored, 3)
    out.seconds = round(time.perf_counter() - started, 3)
    return out
