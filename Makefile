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

.PHONY: setup demo test lint bench clean

setup: $(VENV)/.installed

# torch first and pinned: this machine's disk holds the CPU wheel; an unpinned torch pulls CUDA.
$(VENV)/.installed: pyproject.toml requirements.lock
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -c requirements.lock -e '.[dev]'
	touch $@

demo: setup
	$(BIN)/citegraph ingest examples/sotu --corpus $(DEMO_CORPUS)
	$(BIN)/citegraph search "How many troops were in Iraq?" --corpus $(DEMO_CORPUS) --top 5

test: setup
	$(BIN)/python -m pytest -q

lint: setup
	$(BIN)/ruff check src tests
	$(BIN)/ruff format --check src tests
	$(BIN)/mypy

bench: setup
	$(BIN)/python benchmarks/retrieval.py

clean:
	rm -rf $(VENV) .citegraph .pytest_cache .mypy_cache .ruff_cache
