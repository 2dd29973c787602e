"""Record the model traffic replayed by tests/integration/test_llm_recorded.py.

Needs the local model server (tools/local-model.sh serve VENV GGUF 8765). Run from the repo:
    .venv/bin/python tests/record_llm.py [CASE ...]      (every case by default)
The corpus is built in a fixed folder so that document ids (which hash the file path) match replay.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import citegraph  # noqa: F401
from citegraph.embed import get_embedder
from llm_cases import CASES, CASSETTES, REAL_CASES, build_corpus, build_real_corpus, run_case, vcr_config

ROOT = Path("/tmp/citegraph-llm-cases")


def main() -> None:
    shutil.rmtree(ROOT, ignore_errors=True)
    corpus = build_corpus(ROOT / "docs", ROOT / "corpus", get_embedder())
    real = build_real_corpus(ROOT / "real-docs", ROOT / "real-corpus", get_embedder())
    CASSETTES.mkdir(parents=True, exist_ok=True)
    for name in sys.argv[1:] or [*CASES, *REAL_CASES]:
        path = CASSETTES / f"{name}.yaml"
        path.unlink(missing_ok=True)
        with vcr_config().use_cassette(str(path), record_mode="all"):
            answer = run_case(name, real if name in REAL_CASES else corpus)
        print(name, answer.engine, answer.fallbacks, answer.timings_ms)
        print(answer.render())


if __name__ == "__main__":
    main()
