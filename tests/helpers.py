"""Test helpers that make real input files."""

from __future__ import annotations

import contextlib
import http.server
import re
import threading
from collections.abc import Iterator
from pathlib import Path


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


@contextlib.contextmanager
def recorder() -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """A web server on loopback that nobody should call: yields its URL and the (path, Authorization)
    of every request that reached it; each gets a 500."""
    seen: list[tuple[str, str]] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            seen.append((self.path, self.headers.get("Authorization", "")))
            self.send_response(500)
            self.end_headers()

        do_GET = do_PUT = do_PATCH = do_POST

        def log_message(self, *args: object) -> None:
            pass

    srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{srv.server_address[1]}", seen
    finally:
        srv.shutdown()
        srv.server_close()
