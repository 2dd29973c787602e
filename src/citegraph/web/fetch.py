"""Fetching the pages a search found, as a careful crawler does: a user agent that names citegraph,
robots.txt obeyed (RFC 9309), a timeout on every request, a size limit read as the bytes arrive, at
most a few redirects, and HTML or plain text only.

Search results are untrusted input: a result (or a redirect) may point at this machine or the
operator's network (http://127.0.0.1:…, http://169.254.169.254/ …). Such addresses are refused unless
the operator allows them (`web_allow_private`, for an intranet). Every hop of a redirect is checked,
since a public page can redirect to a private one.
"""

from __future__ import annotations

import ipaddress
import socket
import threading
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit
from urllib.robotparser import RobotFileParser

import httpx
from charset_normalizer import from_bytes

USER_AGENT = "citegraph/0.1 (question answering with citations; obeys robots.txt)"
ROBOTS_AGENT = "citegraph"
PAGE_TYPES = ("text/html", "application/xhtml+xml", "text/plain")
MAX_REDIRECTS = 5


class FetchError(Exception):
    """Why a page was not read (said in the trace; the run goes on without it)."""


@dataclass(frozen=True)
class Fetched:
    url: str  # where the page was read, after redirects
    content_type: str
    text: str


@dataclass(frozen=True)
class FetchPolicy:
    timeout_s: float = 10.0
    max_bytes: int = 2_000_000
    allow_private: bool = False


def check_host(url: str, allow_private: bool) -> None:
    """Refuse what is not http(s), and (unless allowed) a host that is or resolves to a loopback,
    private, link-local or otherwise non-public address."""
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise FetchError(f"not an http(s) URL: {url[:200]}")
    if allow_private:
        return
    host = parts.hostname
    try:
        addresses = {ipaddress.ip_address(host)}
    except ValueError:
        try:
            infos = socket.getaddrinfo(host, parts.port or (443 if parts.scheme == "https" else 80))
        except OSError as e:
            raise FetchError(f"{host} could not be resolved: {e}") from None
        addresses = {ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos}
    private = sorted(str(a) for a in addresses if not a.is_global)
    if private:
        raise FetchError(f"{host} is a private or local address ({private[0]}): not fetched")


def _decode(data: bytes, charset: str | None) -> str:
    if charset:
        try:
            return data.decode(charset)
        except (LookupError, UnicodeDecodeError):
            pass
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        best = from_bytes(data).best()
        return str(best) if best is not None else data.decode("utf-8", errors="replace")


class Fetcher:
    """One per web search; not shared across threads beyond its own robots cache lock."""

    def __init__(self, client: httpx.Client, policy: FetchPolicy):
        self.client = client
        self.policy = policy
        self._robots: dict[str, RobotFileParser | None] = {}
        self._lock = threading.Lock()

    def _get(self, url: str, accept: tuple[str, ...]) -> tuple[str, int, str, bytes]:
        """(final url, status, content type, body) following redirects by hand, each hop checked."""
        for _ in range(MAX_REDIRECTS + 1):
            check_host(url, self.policy.allow_private)
            try:
                with self.client.stream("GET", url, headers={"User-Agent": USER_AGENT}) as r:
                    if r.is_redirect and "location" in r.headers:
                        url = urljoin(url, r.headers["location"])
                        continue
                    ctype = r.headers.get("content-type", "").split(";")[0].strip().lower()
                    if r.status_code < 300 and accept and ctype not in accept:
                        raise FetchError(f"not a page ({ctype or 'no content type'}): {url[:200]}")
                    declared = r.headers.get("content-length", "")
                    if declared.isdigit() and int(declared) > self.policy.max_bytes:
                        raise FetchError(f"larger than {self.policy.max_bytes:,} bytes: {url[:200]}")
                    body = bytearray()
                    for part in r.iter_bytes():
                        body += part
                        if len(body) > self.policy.max_bytes:
                            raise FetchError(f"larger than {self.policy.max_bytes:,} bytes: {url[:200]}")
                    return url, r.status_code, r.headers.get("content-type", ""), bytes(body)
            except httpx.TimeoutException:
                raise FetchError(f"no answer within {self.policy.timeout_s:g} s: {url[:200]}") from None
            except httpx.HTTPError as e:
                raise FetchError(f"could not be read ({type(e).__name__}): {url[:200]}") from None
        raise FetchError(f"more than {MAX_REDIRECTS} redirects: {url[:200]}")

    def allowed(self, url: str) -> bool:
        """Whether robots.txt lets citegraph read `url` (RFC 9309: a missing file (4xx) allows all; an
        unreachable one or a server error disallows all)."""
        parts = urlsplit(url)
        origin = f"{parts.scheme}://{parts.netloc}"
        with self._lock:
            known = origin in self._robots
            rules = self._robots.get(origin)
        if not known:
            rules = RobotFileParser()
            try:
                _, status, _, body = self._get(f"{origin}/robots.txt", ())
            except FetchError:
                status, body = 599, b""
            if 400 <= status < 500:
                rules.parse([])  # no rules: everything allowed
            elif status >= 500:
                rules.parse(["User-agent: *", "Disallow: /"])
            else:
                rules.parse(_decode(body, None).splitlines())
            with self._lock:
                self._robots[origin] = rules
        assert rules is not None
        return rules.can_fetch(ROBOTS_AGENT, url)

    def fetch(self, url: str) -> Fetched:
        check_host(url, self.policy.allow_private)  # before robots.txt: nothing is sent to such a host
        if not self.allowed(url):
            raise FetchError(f"robots.txt disallows it: {url[:200]}")
        final, status, ctype, body = self._get(url, PAGE_TYPES)
        if status >= 400:
            raise FetchError(f"HTTP {status}: {url[:200]}")
        charset = None
        for param in ctype.split(";")[1:]:
            key, _, value = param.strip().partition("=")
            if key.lower() == "charset":
                charset = value.strip().strip('"')
        return Fetched(final, ctype.split(";")[0].strip().lower(), _decode(body, charset))
