"""Shared fixtures: the real embedder (loaded once per test session) and small corpora built here."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import citegraph  # noqa: F401  (offline defaults)

DATA = Path(__file__).parent / "data"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The integration tier (real stores, servers, models) is `slow`: `make test-fast` leaves it out."""
    for item in items:
        if "integration" in item.path.parts:
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session")
def embedder():
    from citegraph.embed import get_embedder

    return get_embedder()


DOCS = {
    "ottawa.md": """---
title: Ottawa water report
date: 2019-05-01
source_tier: primary
region: north
---
# Water supply

Ottawa's water treatment plant at Britannia processes 310 million litres per day. The plant opened in
1932.

# Budget

The budget for water infrastructure was 45 million dollars in 2019.
""",
    "ottawa_2021.md": """---
title: Ottawa water update
date: 2021-06-01
region: north
---
Ottawa's water treatment plant at Britannia processes 295 million litres per day, down from the year
before because of lower industrial demand.
""",
    "volcano.txt": """Mount Etna is an active stratovolcano on the east coast of Sicily, Italy. It is the highest
Italian mountain south of the Alps, standing 3,357 metres tall.

Etna erupted in February 2021, sending lava fountains over 1,500 metres high.
""",
    "bees.html": """<html><head><title>Honeybee colonies</title>
<meta name="date" content="2020-03-15"></head><body>
<nav>Home | About</nav>
<h1>Honeybee colonies</h1>
<p>A honeybee colony contains a single queen, thousands of female workers and a few hundred drones.</p>
<h2>Decline</h2>
<p>Beekeepers in the United States lost 45 percent of their colonies between April 2019 and April 2020.</p>
<script>var x = 1;</script>
</body></html>
""",
}


@pytest.fixture(scope="module")
def docs_corpus(tmp_path_factory, embedder) -> Path:
    """DOCS ingested into a corpus, once per test module."""
    from citegraph.ingest.pipeline import ingest

    folder = tmp_path_factory.mktemp("docs")
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    c = tmp_path_factory.mktemp("corpus") / "c"
    ingest([folder], c, embedder=embedder)
    return c


@pytest.fixture()
def doc_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in DOCS.items():
        (folder / name).write_text(text)
    return folder


def run_cli(*args: str, env: dict[str, str] | None = None, **kwargs):
    """Run the real `citegraph` console script in a subprocess (`env`: variables set for it)."""
    import subprocess

    exe = Path(sys.executable).parent / "citegraph"
    env = {**os.environ, "PYTHONWARNINGS": "ignore", **(env or {})}
    return subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, timeout=600, **kwargs)
