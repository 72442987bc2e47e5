PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test lint clean bench chaos

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/python -m tooling.demo

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

test: lint
	$(BIN)/pytest -q

bench: $(STAMP)
	$(BIN)/python -c 'import dbos, matplotlib' 2>/dev/null || $(BIN)/pip install --quiet -r tooling/bench/requirements.txt
	$(BIN)/python -m tooling.bench $(BENCH_ARGS)

chaos: $(STAMP)
	$(BIN)/python -m tooling.chaos $(CHAOS_ARGS)

clean:
	rm -rf $(VENV) .fundsaga .mypy_cache .pytest_cache .ruff_cache
