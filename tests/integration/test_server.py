"""`langgraph dev` serves the graph on loopback (as Studio uses it); a run through `langgraph_sdk`
returns a cited answer for a minimal input (just the question)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from citegraph.ingest.pipeline import ingest

ROOT = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture()
def server(tmp_path: Path, doc_folder: Path, embedder):
    corpus = tmp_path / "corpus"
    ingest([doc_folder], corpus, embedder=embedder)
    port = _free_port()
    env = {
        **os.environ,
        "CITEGRAPH_CORPUS": str(corpus),
        "LANGGRAPH_CLI_NO_ANALYTICS": "1",
        "LANGSMITH_TRACING": "false",
        "LANGGRAPH_STRICT_MSGPACK": "true",
    }
    exe = Path(sys.executable).parent / "langgraph"
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(
        [str(exe), "dev", "--port", str(port), "--no-browser", "--no-reload", "--config", str(ROOT / "langgraph.json")],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            urllib.request.urlopen(f"{url}/ok", timeout=1)
            break
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.5)
    else:
        proc.kill()
        pytest.fail("langgraph dev did not start: " + (tmp_path / "server.log").read_text()[-2000:])
    if proc.poll() is not None:
        pytest.fail("langgraph dev exited: " + (tmp_path / "server.log").read_text()[-2000:])
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


def test_langgraph_dev_serves_the_graph(server: str):
    from langgraph_sdk import get_client

    async def go():
        client = get_client(url=server)
        assistants = await client.assistants.search(graph_id="citegraph")
        assert assistants, "the graph from langgraph.json is registered"
        return await client.runs.wait(None, "citegraph", input={"question": "How tall is Mount Etna?"})

    out = asyncio.run(go())
    answer = out["answer"]
    assert not answer["abstained"] and "3,357" in answer["answer"]
    assert answer["references"] and all(s["citations"] for s in answer["sentences"])
