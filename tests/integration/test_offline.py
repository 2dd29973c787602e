"""Offline means offline: with default settings, `citegraph ingest` and `citegraph ask` open no
network connection and send no DNS query (no telemetry, no model download). Counted at the system
call level with strace, so native libraries (onnxruntime, Chroma's Rust core) are counted too."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import network_connects

STRACE = shutil.which("strace")


def _network_connects(*args: str, cwd: Path) -> list[str]:
    log = cwd / f"strace-{args[0]}.log"
    exe = Path(sys.executable).parent / "citegraph"
    # Default settings: none of the offline variables the test suite or .env set.
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_", "ANONYMIZED", "LANGSMITH"))}
    proc = subprocess.run(
        [STRACE or "strace", "-f", "-qq", "--seccomp-bpf", "-e", "trace=connect", "-o", str(log), str(exe), *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return network_connects(log.read_text())


@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
def test_ingest_and_ask_open_no_network_connection(tmp_path: Path, doc_folder: Path):
    corpus = tmp_path / "corpus"
    assert _network_connects("ingest", str(doc_folder), "--corpus", str(corpus), "--no-progress", cwd=tmp_path) == []
    asked = _network_connects("ask", "How tall is Mount Etna?", "--corpus", str(corpus), "--quiet", cwd=tmp_path)
    assert asked == []


@pytest.mark.skipif(STRACE is None, reason="strace is not installed")
def test_the_check_sees_a_connection_when_there_is_one(tmp_path: Path):
    # The same parsing on a process that does connect out (to a TEST-NET address, which fails fast
    # or times out; the attempt is what strace records).
    log = tmp_path / "s.log"
    code = "import socket; s=socket.socket(); s.settimeout(0.2)\ntry: s.connect(('192.0.2.1', 9))\nexcept OSError: pass"
    subprocess.run(
        [STRACE or "strace", "-f", "-qq", "-e", "trace=connect", "-o", str(log), sys.executable, "-c", code], timeout=60
    )
    assert any("192.0.2.1" in line for line in network_connects(log.read_text()))


def test_importing_citegraph_turns_off_the_libraries_telemetry():
    """What a long-lived process (`langgraph dev`) needs before onnxruntime starts: onnxruntime 1.32
    sends usage events from native code every few seconds some 20 s into the process
    (docs/RELIABILITY.md); a value the user exported wins."""
    code = "import os, citegraph; print(os.environ['ORT_DISABLE_TELEMETRY'], os.environ['ANONYMIZED_TELEMETRY'])"
    env = {k: v for k, v in os.environ.items() if k not in ("ORT_DISABLE_TELEMETRY", "ANONYMIZED_TELEMETRY")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split() == ["1", "False"]
    env["ORT_DISABLE_TELEMETRY"] = "0"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert out.stdout.split()[0] == "0"
