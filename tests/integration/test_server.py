"""`citegraph serve` (`langgraph dev` on the packaged graph) serves it on loopback, as Studio uses it;
a run through `langgraph_sdk` returns a cited answer for a minimal input (just the question), and a
client cannot reach past the run settings: not the operator's model endpoint or key, not a folder of its
choosing, not an unbounded loop. One server for the module (it takes ~20 s to start), its connections
recorded: none may leave the machine."""

from __future__ import annotations

import asyncio
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from citegraph.ingest.pipeline import ingest
from helpers import network_connects, recorder

ROOT = Path(__file__).resolve().parents[2]
STRACE = shutil.which("strace")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def attacker():
    """A host the operator never configured: its URL, and what reached it."""
    with recorder() as (url, seen):
        yield f"{url}/v1", seen


@pytest.fixture(scope="module")
def served(tmp_path_factory, embedder):
    """`citegraph serve` from a folder that is not the repo, with default settings (none of the offline
    variables the suite or `make serve` set), its connect() calls recorded by strace where there is one:
    the server's URL and that log."""
    from conftest import DOCS

    tmp_path = tmp_path_factory.mktemp("server")
    (tmp_path / "docs").mkdir()
    for name, text in DOCS.items():
        (tmp_path / "docs" / name).write_text(text)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "secret.txt").write_text("The vault code is 4417. Only the other corpus holds it.\n")
    corpus, other = tmp_path / "corpus", tmp_path / "other-corpus"
    ingest([tmp_path / "docs"], corpus, embedder=embedder)
    ingest([tmp_path / "other"], other, embedder=embedder)
    port = _free_port()
    offline = ("HF_", "TRANSFORMERS_", "ANONYMIZED", "ORT_", "LANGSMITH", "LANGGRAPH_")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(offline)},
        "CITEGRAPH_CORPORA": f"vault={other}",
        # The operator's key, with no model configured: the extractive engine answers, and the key
        # must go nowhere.
        "CITEGRAPH_LLM_API_KEY": "sk-operator-secret",
    }
    strace_log = tmp_path / "strace.log"
    traced = [STRACE, "-f", "-qq", "--seccomp-bpf", "-e", "trace=connect,bind", "-o", str(strace_log)] if STRACE else []
    exe = Path(sys.executable).parent / "citegraph"
    cmd = [*traced, str(exe), "serve", "--port", str(port), "--corpus", str(corpus)]
    log = (tmp_path / "server.log").open("w")
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
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
        pytest.fail("citegraph serve did not start: " + (tmp_path / "server.log").read_text()[-2000:])
    if proc.poll() is not None:
        pytest.fail("citegraph serve exited: " + (tmp_path / "server.log").read_text()[-2000:])
    yield url, strace_log
    os.killpg(proc.pid, signal.SIGTERM)  # the server and whatever it started
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
    log.close()


@pytest.fixture(scope="module")
def server(served) -> str:
    return served[0]


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


def test_the_server_gives_studio_every_schema(server: str):
    from langgraph_sdk import get_client

    async def go():
        client = get_client(url=server)
        (assistant,) = await client.assistants.search(graph_id="citegraph")
        return await client.assistants.get_schemas(assistant["assistant_id"])

    schemas = asyncio.run(go())
    for name in ("input_schema", "output_schema", "state_schema", "context_schema"):
        assert schemas.get(name), f"{name} is missing: Studio shows no form for it"
    assert "question" in schemas["input_schema"]["properties"]
    context = schemas["context_schema"]["properties"]
    assert "llm_base_url" not in context and "deployment" not in context
    assert context["max_reconcile_rounds"]["description"]


def test_streamed_updates_show_what_each_node_decided(server: str):
    from langgraph_sdk import get_client

    async def go():
        client = get_client(url=server)
        updates = []
        async for part in client.runs.stream(
            None, "citegraph", input={"question": "How tall is Mount Etna?"}, stream_mode="updates"
        ):
            if part.event == "updates":
                updates.append(part.data)
        return updates

    by_node: dict[str, list] = {}
    for update in asyncio.run(go()):
        for node, delta in update.items():
            by_node.setdefault(node, []).append(delta)
    # Every node's update carries its trace entry, with what it decided in a readable size.
    decided = {node: [e["decided"] for d in deltas for e in d["trace"]] for node, deltas in by_node.items()}
    assert decided["route"][0]["mode"] == "corpus"
    passages = [p for d in decided["retrieve"] for p in d["passages"]]
    assert passages and all(p["chunk_id"] and len(p["text"]) <= 100 for p in passages)
    assert any(d["facts"] for d in decided["extract"]) and "support" in decided["judge"][0]
    assert by_node["write"][0]["answer"]["references"]


def _run(server: str, payload: dict, context: dict | None = None) -> dict:
    from langgraph_sdk import get_client

    async def go():
        client = get_client(url=server)
        return await client.runs.wait(None, "citegraph", input=payload, context=context or {}, raise_error=False)

    return asyncio.run(go())


def _error(out: dict) -> str:
    """The message of a failed run, as the server reports it."""
    err = out.get("__error__") if isinstance(out, dict) else None
    assert err, f"the run should have failed: {str(out)[:300]}"
    return f"{err.get('error')}: {err.get('message')}"


def test_a_client_cannot_redirect_the_model_or_the_corpus(server: str, attacker, tmp_path: Path):
    attacker, seen = attacker
    elsewhere = tmp_path / "elsewhere"
    context = {
        "llm_base_url": attacker,
        "llm_model": "x",
        "llm_api_key": "sk-client",
        "corpus_dir": str(elsewhere),
        "deployment": {"llm_base_url": attacker, "llm_model": "x"},
    }
    out = _run(server, {"question": "How tall is Mount Etna?"}, context)
    assert seen == []  # not one request, so the operator's key went nowhere
    message = _error(out)  # refused by name, not quietly run on the operator's settings
    assert "unknown run setting(s): corpus_dir, deployment, llm_api_key, llm_base_url, llm_model" in message
    assert "the operator's settings" in message
    assert not elsewhere.exists()


def test_studio_chat_messages_get_a_cited_ai_message(server: str):
    out = _run(server, {"messages": [{"type": "human", "content": "How tall is Mount Etna?"}]})
    reply = out["messages"][-1]
    assert reply["type"] == "ai" and "3,357" in reply["content"] and "References" in reply["content"]
    assert reply["response_metadata"]["references"][0]["quote"]


def test_a_misspelt_run_setting_is_refused_not_ignored(server: str):
    # The server drops context keys its schema lacks; this one would have answered from the default corpus.
    message = _error(_run(server, {"question": "What is the vault code?"}, {"corpus_name": "vault"}))
    assert "unknown run setting(s): corpus_name;" in message and "corpus" in message.split("may set:")[1]
    # What the server adds itself, and every setting a client may choose, still runs.
    out = _run(server, {"question": "How tall is Mount Etna?"}, {"corpus": "default", "k_dense": 20})
    assert "3,357" in out["answer"]["answer"] and out["answer"]["engine"] == "extractive"


def test_a_client_picks_a_corpus_by_name_among_the_operators(server: str):
    out = _run(server, {"question": "What is the vault code?"}, {"corpus": "vault"})
    assert "4417" in out["answer"]["answer"]
    refused = _run(server, {"question": "What is the vault code?"}, {"corpus": "elsewhere"})
    assert "unknown corpus 'elsewhere'" in _error(refused)


def test_run_settings_out_of_bounds_and_bad_input_are_refused_by_name(server: str):
    assert "max_reconcile_rounds must be between 0 and 2" in _error(
        _run(server, {"question": "How tall is Mount Etna?"}, {"max_reconcile_rounds": 12})
    )
    etna = {"question": "How tall is Mount Etna?"}
    assert "k_dense must be a number" in _error(_run(server, etna, {"k_dense": "all"}))
    assert '"question"' in _error(_run(server, {}))
    assert "question must be a string" in _error(_run(server, {"question": 5}))
    assert "unknown mode 'fast'" in _error(_run(server, {"question": "How tall is Mount Etna?", "mode": "fast"}))
    assert "is not a date" in _error(_run(server, {"question": "How tall is Mount Etna?", "as_of": "garbage'; DROP"}))
    assert "the limit is 2,000" in _error(_run(server, {"question": "Why? " * 2000}))


def test_the_repo_config_and_the_packaged_one_serve_the_same_graph():
    """`langgraph dev` in a clone reads ./langgraph.json (the graph by file, for hot reload);
    `citegraph serve` the packaged one (by module): both must name the same graph."""
    from langgraph_cli.config import validate_config_file

    repo = validate_config_file(ROOT / "langgraph.json")["graphs"]
    packaged = validate_config_file(ROOT / "src" / "citegraph" / "langgraph.json")["graphs"]
    assert repo == {"citegraph": "./src/citegraph/graph.py:served"}
    assert packaged == {"citegraph": "citegraph.graph:served"}


@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
def test_the_server_opened_no_network_connection(served):
    """Last in the module, after every run above: no analytics, no version check, no telemetry, no
    tracing left the machine (`langgraph dev` alone would post CLI analytics and ask PyPI)."""
    url, strace_log = served
    traced = strace_log.read_text()
    port = url.rsplit(":", 1)[1]
    assert f"htons({port})" in traced, "strace did not see the server bind its port: the check would be blind"
    assert network_connects(traced) == []
