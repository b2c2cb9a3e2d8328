# Two entry points: `make demo` (set up, ingest fixtures/pdfs, ask a question) and
# `make test` (set up, run the test suite). Both run scripts/setup.sh first; it is idempotent.
VENV ?= .venv
BIN := $(VENV)/bin
QUESTION ?= How often do retrievable vena cava filters migrate?

.PHONY: setup demo test lint bench
setup:
	VENV=$(VENV) bash scripts/setup.sh

demo: setup
	$(BIN)/citeloom ingest --project demo
	$(BIN)/citeloom query "$(QUESTION)" --project demo

# One pytest worker per core; a test file stays on one worker (its module fixtures are built
# once); the 25 slowest tests are listed at the end.
test: setup
	$(BIN)/python -m pytest -n auto --dist loadfile --durations=25

lint:
	$(BIN)/ruff check src tests scripts benchmarks

bench: setup
	$(BIN)/python benchmarks/bench_pipeline.py
