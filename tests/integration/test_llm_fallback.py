"""A model endpoint that fails (HTTP 500, or output that does not parse) never kills a run: each node
falls back to the extractive engine and the trace says so. The endpoint is a real HTTP server on
loopback that misbehaves on purpose."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from citegraph.api import ask
from citegraph.ingest.pipeline import ingest


class _Handler(BaseHTTPRequestHandler):
    mode = "error"
    calls = 0

    def do_POST(self):
        type(self).calls += 1
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.mode == "error":
            self.send_response(500)
            self.end_headers()
            self.wfile.write(b'{"error": {"message": "model crashed"}}')
            return
        # A well-formed chat completion whose tool call carries arguments that are not JSON.
        body = {
            "id": "x",
            "object": "chat.completion",
            "created": 0,
            "model": "local",
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls",
                    "message": {
                        "role": "assistant",
                        "content": None,
                        "tool_calls": [
                            {
                                "id": "c1",
                                "type": "function",
                                "function": {"name": "RouteDecision", "arguments": "{not json"},
                            }
                        ],
                    },
                }
            ],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


@pytest.fixture()
def bad_endpoint():
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server, f"http://127.0.0.1:{server.server_address[1]}/v1"
    server.shutdown()


@pytest.mark.parametrize("mode", ["error", "garbage"])
def test_failing_model_falls_back_to_the_extractive_engine(
    mode, bad_endpoint, doc_folder: Path, tmp_path: Path, embedder
):
    _server, url = bad_endpoint
    _Handler.mode, _Handler.calls = mode, 0
    corpus = tmp_path / "corpus"
    ingest([doc_folder], corpus, embedder=embedder)
    answer = ask(
        "How tall is Mount Etna?",
        corpus=str(corpus),
        llm_base_url=url,
        llm_model="local",
        llm_max_retries=0,
        llm_timeout_s=10,
    )
    assert _Handler.calls > 0, "the model was asked"
    assert not answer.abstained and "3,357" in answer.answer
    nodes = {f.split(":")[0] for f in answer.fallbacks}
    assert {"route", "decompose", "extract", "write"} <= nodes
    assert answer.engine == "extractive"
