"""Web search providers: one question's query in, ranked results (URL, title, snippet, the date the
provider gives) out, over httpx with a timeout on every request.

Each provider follows its documented API:
- Brave Search: `GET {base}/res/v1/web/search?q=…&count=…&freshness=YYYY-MM-DDtoYYYY-MM-DD`, key in
  the `X-Subscription-Token` header; results in `web.results[]` (`url`, `title`, `description`,
  `page_age`). https://api-dashboard.search.brave.com/app/documentation/web-search/query
- Tavily: `POST {base}/search` with `{"query", "max_results", "start_date", "end_date", "topic"}`,
  key as `Authorization: Bearer`; results in `results[]` (`url`, `title`, `content`,
  `published_date`). https://docs.tavily.com/documentation/api-reference/endpoint/search
- SearxNG: `GET {instance}/search?q=…&format=json&time_range=day|month|year`; results in `results[]`
  (`url`, `title`, `content`, `publishedDate`). The instance must enable the json format.
  https://docs.searxng.org/dev/search_api.html

langchain-community's wrappers for these (BraveSearchWrapper, TavilySearchAPIWrapper,
SearxSearchWrapper) are not used: the package is sunset (its import says so), its requests carry no
timeout, so a dead provider would hang the run, and they drop the result dates the recent mode ranks by.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import date
from email.utils import parsedate_to_datetime
from typing import Any

import httpx

from citegraph.text.dates import parse_date

PROVIDERS = ("brave", "tavily", "searxng")
DEFAULT_BASE_URLS = {"brave": "https://api.search.brave.com", "tavily": "https://api.tavily.com", "searxng": ""}


class SearchError(Exception):
    """The provider could not be asked, or its answer was not what its API documents."""


@dataclass(frozen=True)
class WebResult:
    url: str
    title: str = ""
    snippet: str = ""
    published: str | None = None  # ISO date the provider gives for the page, if any

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Query:
    text: str
    count: int
    since: date | None = None  # the freshness filter: pages published from this date
    until: date | None = None  # … up to this one (an as-of date)


def _iso(value: Any) -> str | None:
    """A provider's date as ISO: Brave and SearxNG give ISO 8601, Tavily's news results RFC 2822."""
    if value in (None, ""):
        return None
    d = parse_date(str(value))
    if d is None:
        try:
            d = parsedate_to_datetime(str(value)).date()
        except (TypeError, ValueError):
            return None
    return d.isoformat()


def _brave(client: httpx.Client, base: str, key: str, q: Query) -> list[WebResult]:
    params: dict[str, Any] = {"q": q.text, "count": min(q.count, 20)}
    if q.since:
        params["freshness"] = f"{q.since.isoformat()}to{(q.until or date.today()).isoformat()}"
    r = client.get(
        f"{base}/res/v1/web/search",
        params=params,
        headers={"X-Subscription-Token": key, "Accept": "application/json"},
    )
    r.raise_for_status()
    items = (r.json().get("web") or {}).get("results") or []
    return [
        WebResult(i["url"], i.get("title", ""), i.get("description", ""), _iso(i.get("page_age")))
        for i in items
        if isinstance(i, dict) and i.get("url")
    ]


def _tavily(client: httpx.Client, base: str, key: str, q: Query) -> list[WebResult]:
    body: dict[str, Any] = {"query": q.text, "max_results": min(q.count, 20), "topic": "general"}
    if q.since:
        body["start_date"] = q.since.isoformat()
        body["end_date"] = (q.until or date.today()).isoformat()
    r = client.post(f"{base}/search", json=body, headers={"Authorization": f"Bearer {key}"})
    r.raise_for_status()
    items = r.json().get("results") or []
    return [
        WebResult(i["url"], i.get("title", ""), i.get("content", ""), _iso(i.get("published_date")))
        for i in items
        if isinstance(i, dict) and i.get("url")
    ]


def searxng_time_range(since: date | None, until: date | None) -> str | None:
    """SearxNG filters by the last day, month or year only: the smallest range that holds `since`, and
    none when the window is longer than a year or ends before today (its filter cannot end in the past)."""
    if since is None or (until and until < date.today()):
        return None
    days = (date.today() - since).days
    for name, span in (("day", 1), ("month", 31), ("year", 366)):
        if days <= span:
            return name
    return None


def _searxng(client: httpx.Client, base: str, key: str, q: Query) -> list[WebResult]:
    if not base:
        raise SearchError("SearxNG needs its instance URL (CITEGRAPH_WEB_URL)")
    params: dict[str, Any] = {"q": q.text, "format": "json"}
    time_range = searxng_time_range(q.since, q.until)
    if time_range:
        params["time_range"] = time_range
    r = client.get(f"{base}/search", params=params)
    r.raise_for_status()
    items = r.json().get("results") or []
    return [
        WebResult(i["url"], i.get("title", ""), i.get("content", ""), _iso(i.get("publishedDate")))
        for i in items[: q.count]
        if isinstance(i, dict) and i.get("url")
    ]


_CALLS: dict[str, Callable[[httpx.Client, str, str, Query], list[WebResult]]] = {
    "brave": _brave,
    "tavily": _tavily,
    "searxng": _searxng,
}


def search(client: httpx.Client, provider: str, base_url: str, key: str, query: Query) -> list[WebResult]:
    """Results of one query, best first, at most `query.count`. Raises SearchError with the reason."""
    if provider not in _CALLS:
        raise SearchError(f"unknown web search provider {provider!r}: use {', '.join(PROVIDERS)}")
    base = (base_url or DEFAULT_BASE_URLS[provider]).rstrip("/")
    try:
        return _CALLS[provider](client, base, key, query)[: query.count]
    except httpx.HTTPStatusError as e:
        raise SearchError(f"{provider} answered HTTP {e.response.status_code}") from None
    except httpx.TimeoutException:
        raise SearchError(f"{provider} did not answer within {client.timeout.read} s") from None
    except httpx.HTTPError as e:
        raise SearchError(f"{provider} could not be reached: {type(e).__name__}: {e}") from None
    except (ValueError, KeyError, TypeError, AttributeError) as e:
        raise SearchError(f"{provider}'s answer is not the JSON its API documents: {e}") from None
