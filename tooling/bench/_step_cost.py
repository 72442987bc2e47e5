"""The transfer's activities outside Temporal: what the ledger side of a saga costs in CPU.

Calls each action of TRANSFER_SAGA directly, with the snapshot the engine would send, on a
fresh ledger (SQLite unless told); no server, no worker, no payload conversion.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import event

from activities.transfer import TransferActivities
from sagas.engine import CompensationEntry, Phase, SagaStatus, Snapshot
from sagas.transfer import TRANSFER_SAGA, TransferCall, TransferRequest, TransferState
from tooling.bench._setup import bench_ledger, ledger_database, requests

Action = Callable[[TransferCall], TransferState]

WARMUP = 20


@dataclass(frozen=True)
class StepCost:
    transfers: int
    cpu_ms_per_transfer: float
    commits_per_transfer: float

    def line(self) -> str:
        return (
            f"step cost: {self.transfers} transfers through TransferActivities, no Temporal: "
            f"{self.cpu_ms_per_transfer:.2f} ms CPU and {self.commits_per_transfer:.1f} "
            "commits per transfer"
        )


def measure_step_cost(directory: Path, transfers: int, database: str = "sqlite") -> StepCost:
    """CPU time of the process per transfer (its five actions), after a short warm-up.

    `database` as the bench's --database: `sqlite` or `postgresql` (as the worker role)."""
    with ledger_database(database, directory) as url:
        return _measure(url, transfers)


def _measure(url: str, transfers: int) -> StepCost:
    ledger = bench_ledger(url)
    activities = TransferActivities(ledger)
    actions: list[Action] = [
        activities.reserve,
        activities.capture,
        activities.credit,
        activities.settle,
        activities.release,
    ]
    source = requests("cost")
    commits = [0]

    def counted(_connection: object) -> None:
        commits[0] += 1

    for _ in range(WARMUP):
        _one_transfer(next(source), actions)
    event.listen(ledger.engine, "commit", counted)
    started = time.process_time()
    for _ in range(transfers):
        _one_transfer(next(source), actions)
    elapsed = time.process_time() - started
    event.remove(ledger.engine, "commit", counted)
    ledger.close_connections()
    return StepCost(
        transfers=transfers,
        cpu_ms_per_transfer=round(1000 * elapsed / transfers, 2),
        commits_per_transfer=commits[0] / transfers,
    )


def _one_transfer(request: TransferRequest, actions: Sequence[Action]) -> None:
    saga_id = f"transfer-{request.idempotency_key}"
    state = TransferState()
    stack: list[CompensationEntry] = []
    for index, (step, action) in enumerate(zip(TRANSFER_SAGA.steps, actions, strict=True)):
        snapshot = Snapshot(
            saga_id=saga_id,
            saga_type=TRANSFER_SAGA.saga_type,
            step_index=index,
            step_name=step.name,
            status=SagaStatus.RUNNING,
            data=state.model_dump(mode="json"),
            compensation_stack=list(stack),
            recorded_at=datetime.now(UTC),
        )
        if step.compensation is not None:
            entry = CompensationEntry(
                step_index=index, step_name=step.name, compensation=step.compensation
            )
            stack.append(entry)
        call = TRANSFER_SAGA.call_type(
            saga_id=saga_id,
            saga_type=TRANSFER_SAGA.saga_type,
            step_index=index,
            step_name=step.name,
            phase=Phase.ACTION,
            run_chain=f"step-cost-{saga_id}",
            request=request,
            state=state,
            snapshot=snapshot,
        )
        state = action(call)
