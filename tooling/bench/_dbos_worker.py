"""The DBOS peer as a worker process: ``python -m tooling.bench._dbos_worker``.

The transfer's steps and compensations as DBOS Transact steps, with the same retry counts and
the same ledger calls as NAIVE, writing the session's own ledger. DBOS has no server: its system
database (SQLite or PostgreSQL, as the session's ledger) is written by this process, so its CPU
is this process's CPU. The driver sends one saga per line on standard input,
``{"id": ..., "request": {...}}``; each runs on a thread of its own and its line
``{"id": ..., "ok": true|false}`` comes back on standard output. The process stops when its
standard input closes.
"""

from __future__ import annotations

import importlib
import json
import sys
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sagas.transfer import ACTION_RETRY, COMPENSATION_RETRY, TRANSFER_SAGA
from tooling.baselines.activities import NaiveActivities, NaiveCall
from tooling.bench._setup import bench_ledger

STEPS = tuple(step.name for step in TRANSFER_SAGA.steps)
COMPENSATION = {
    step.name: f"compensate_{step.name}"
    for step in TRANSFER_SAGA.steps
    if step.compensation is not None
}
MAX_LANES = 256
"""More threads than the bench's highest concurrency: a saga never waits for a thread."""


def _register(dbos: Any, activities: NaiveActivities) -> Callable[[str, str], str]:
    def step(name: str, spec: Any) -> Callable[[str], None]:
        method = getattr(activities, name)

        def run(call_json: str) -> None:
            method(NaiveCall.model_validate_json(call_json))

        return dbos.step(  # type: ignore[no-any-return]
            name=f"naive.{name}",
            retries_allowed=True,
            interval_seconds=spec.first_interval.total_seconds(),
            max_attempts=spec.maximum_attempts,
            backoff_rate=float(spec.multiplier),
        )(run)

    actions = {s: step(s, ACTION_RETRY) for s in STEPS}
    compensations = {s: step(name, COMPENSATION_RETRY) for s, name in COMPENSATION.items()}

    def transfer(saga_id: str, request_json: str) -> str:
        call_json = NaiveCall.model_validate(
            {"saga_id": saga_id, "request": json.loads(request_json)}
        ).model_dump_json()
        taken: list[str] = []
        try:
            for name in STEPS:
                taken.append(name)
                actions[name](call_json)
        except Exception:
            for name in reversed(taken):
                if name in compensations:
                    compensations[name](call_json)
            raise
        return "completed"

    return dbos.workflow(name="naive_transfer")(transfer)  # type: ignore[no-any-return]


def _serve(transfer: Callable[[str, str], str]) -> None:
    replies = threading.Lock()

    def one(line: str) -> None:
        order = json.loads(line)
        try:
            ok = transfer(order["id"], json.dumps(order["request"])) == "completed"
        except Exception as err:
            print(f"dbos saga {order['id']} failed: {err!r}", file=sys.stderr, flush=True)
            ok = False
        with replies:
            sys.stdout.write(json.dumps({"id": order["id"], "ok": ok}) + "\n")
            sys.stdout.flush()

    with ThreadPoolExecutor(max_workers=MAX_LANES) as pool:
        for line in sys.stdin:
            if line.strip():
                pool.submit(one, line)


def main(spec: dict[str, str]) -> None:
    dbos = importlib.import_module("dbos").DBOS
    dbos(config={"name": "fundsaga-bench", "system_database_url": spec["system_database_url"]})
    transfer = _register(dbos, NaiveActivities(bench_ledger(spec["ledger_url"])))
    dbos.launch()
    try:
        print("ready", flush=True)
        _serve(transfer)
    finally:
        dbos.destroy()


if __name__ == "__main__":
    main(json.loads(sys.stdin.readline()))
