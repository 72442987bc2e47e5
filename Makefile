PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-long lint clean bench bench-ledger chaos outage-long lock cli-help

LOCK_VENV := .venv-lock
PIP_COMPILE = $(LOCK_VENV)/bin/pip-compile --quiet --generate-hashes --allow-unsafe --strip-extras \
	--no-emit-index-url --no-emit-find-links --no-emit-trusted-host

# Exactly what CI tested: every dependency, transitive ones too, pinned with its hashes.
$(STAMP): pyproject.toml requirements-dev.lock
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --no-deps --require-hashes -r requirements-dev.lock
	$(BIN)/pip install --quiet --no-deps --no-build-isolation -e .
	touch $(STAMP)

# After a change to pyproject.toml's dependencies: both lock files, resolved afresh.
lock:
	$(PYTHON) -m venv $(LOCK_VENV)
	$(LOCK_VENV)/bin/pip install --quiet pip-tools==7.6.2
	$(PIP_COMPILE) -o requirements.lock pyproject.toml tooling/lock/build.in
	$(PIP_COMPILE) --extra dev -o requirements-dev.lock pyproject.toml

# RUN_ARGS go to `fundsaga dev`: say RUN_ARGS="--port 17233 --ui-port 17234".
# The clock starts when make does, so that "ready in" counts setting up too.
RUN_STARTED_AT := $(shell date +%s)
run: $(STAMP)
	FUNDSAGA_RUN_STARTED_AT=$(RUN_STARTED_AT) $(BIN)/python -m tooling.demo $(RUN_ARGS)

# After a change to a command's options or docstring: the help `--help` prints without loading
# the commands (sagas/cli_help.json; tests/unit/test_cli_help.py says when it is stale).
cli-help: $(STAMP)
	$(BIN)/python -m tooling.cli_help

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# On every core (pytest-xdist): each worker process starts its own Temporal servers on free
# ports and makes its own databases and directories. A test file runs whole on one worker, so a
# module's shared stack is built once. Files are handed out in the order tests/conftest.py sorts
# them, the slowest first (xdist would otherwise put the files of most tests first, and the
# slow ones, of few tests each, last).
# `make test` is lint and every test not marked `long` (the fast and integration tiers);
# `make test-long` is the long tier: chaos runs, outages, README blocks, bench smoke, web UI and
# the PostgreSQL half of the database matrix (README, "Tests").
TEST_WORKERS ?= 4
PYTEST_XDIST = $(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder
test: lint
	$(PYTEST_XDIST) -m "not long"

test-long: $(STAMP)
	$(PYTEST_XDIST) -m long

# FULL=1 adds the 10,000-transfer soaks and the process-scaling run (well over 20 minutes).
FULL ?=
bench: $(STAMP)
	$(BIN)/python -c 'import dbos, matplotlib' 2>/dev/null || $(BIN)/pip install --quiet -r tooling/bench/requirements.txt
	$(BIN)/python -m tooling.bench $(if $(FULL),--full) $(BENCH_ARGS)

# Ledger appends on PostgreSQL by writer count, contention shape and process; BASELINE=<git ref>
# measures that commit's ledger in the same run (docs/performance-ledger-append.md).
BASELINE ?=
bench-ledger: $(STAMP)
	$(BIN)/python -m tooling.bench.ledger_append $(if $(BASELINE),--baseline $(BASELINE)) $(BENCH_LEDGER_ARGS)

chaos: $(STAMP)
	$(BIN)/python -m tooling.chaos $(CHAOS_ARGS)

# The ledger-outage test (tests/outage) with a ten-minute outage instead of make test's minute.
outage-long: $(STAMP)
	FUNDSAGA_OUTAGE_SECONDS=600 $(BIN)/pytest -q -rP --show-capture=stdout -p no:cacheprovider tests/outage

clean:
	rm -rf $(VENV) $(LOCK_VENV) .fundsaga .mypy_cache .pytest_cache .ruff_cache
	rm -rf examples/node-operator/node_modules examples/node-operator/dist examples/node-operator/.npm-cache
