"""Test helpers that make real input files."""

from __future__ import annotations

import contextlib
import http.server
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qs, urlsplit


def write_pdf(path: Path, pages: list[str]) -> Path:
    """A real multi-page PDF with extractable text (matplotlib's PDF backend, TrueType fonts)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.backends.backend_pdf import PdfPages

    matplotlib.rcParams["pdf.fonttype"] = 42
    with PdfPages(path) as pdf:
        for text in pages:
            fig = plt.figure(figsize=(8.5, 11))
            for i, line in enumerate(text.split("\n")):
                fig.text(0.05, 0.95 - 0.03 * i, line, fontsize=9)
            pdf.savefig(fig)
            plt.close(fig)
    return path


# connect() to an internet address in strace's output; loopback (127.0.0.0/8, ::1) is allowed.
_INET = re.compile(
    r"connect\(\d+, \{sa_family=AF_INET6?, sin6?_port=htons\((\d+)\), "
    r".*?inet_(?:addr|pton)\((?:AF_INET6, )?\"([^\"]+)\""
)


def network_connects(strace_log: str) -> list[str]:
    """The lines of an `strace -e trace=connect` log that connect to a non-loopback address, or to port
    53 anywhere (a resolver on loopback, as systemd-resolved's 127.0.0.53, still asks the network)."""
    out = []
    for line in strace_log.splitlines():
        m = _INET.search(line)
        if m and (m.group(1) == "53" or not (m.group(2).startswith("127.") or m.group(2) == "::1")):
            out.append(line)
    return out


@dataclass
class Seen:
    """One request that reached a fixture site."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes


Route = Callable[[Seen], tuple[int, dict[str, str], bytes]]


@contextlib.contextmanager
def fixture_site(
    routes: dict[str, Route | tuple[int, dict[str, str], bytes]],
    default: tuple[int, dict[str, str], bytes] = (404, {}, b""),
) -> Iterator[tuple[str, list[Seen]]]:
    """A web server on loopback serving `routes` by path (a fixed (status, headers, body) or a function
    of the request); any other path gets `default` (a 404). `{base}` in a body becomes the server's URL.
    Yields the URL and every request that reached it."""
    seen: list[Seen] = []
    base = ""

    class Handler(http.server.BaseHTTPRequestHandler):
        def _serve(self) -> None:
            parts = urlsplit(self.path)
            length = int(self.headers.get("Content-Length") or 0)
            req = Seen(self.command, parts.path, parse_qs(parts.query), dict(self.headers), self.rfile.read(length))
            seen.append(req)
            route = routes.get(parts.path)
            status, headers, body = (route(req) if callable(route) else route) if route else default
            body = body.replace(b"{base}", base.encode())
            self.send_response(status)
            for k, v in headers.items():
                if v != "":  # "Content-Length": "" sends none: the body ends when the connection closes
                    self.send_header(k, v)
            if "Content-Length" not in headers:
                self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):  # the client stopped: a size limit
                self.wfile.write(body)

        do_GET = do_POST = do_PUT = do_PATCH = _serve

        def log_message(self, *args: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{srv.server_address[1]}"
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield base, seen
    finally:
        srv.shutdown()
        srv.server_close()


def recorder() -> contextlib.AbstractContextManager[tuple[str, list[Seen]]]:
    """A web server on loopback that nobody should call: yields its URL and every request that reached
    it; each gets a 500."""
    return fixture_site({}, default=(500, {}, b""))
