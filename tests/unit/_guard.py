"""Running a step body under step_guard inside a test activity context."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

from temporalio.testing import ActivityEnvironment

from sagas import FaultPlan, SagaStatus, Snapshot, step_guard
from sagas.engine import RunClaim
from sagas.transfer import TRANSFER_SAGA, TransferCall, TransferRequest, TransferState

RUN_CHAIN = "run-chain-1"


class RecordingSnapshotStore:
    """A SnapshotStore that keeps what it was given, in order."""

    def __init__(self) -> None:
        self.claims: list[RunClaim] = []
        self.snapshots: list[Snapshot] = []
        self.pending: list[Snapshot] = []
        """Handed over to ride in the effect's transaction, not yet committed."""

    def begin_step(self, claim: RunClaim, snapshot: Snapshot | None) -> None:
        self.claims.append(claim)
        if snapshot is not None:
            self.snapshots.append(snapshot)

    @contextmanager
    def begin_step_in_effect(self, claim: RunClaim, snapshot: Snapshot | None) -> Iterator[None]:
        if snapshot is not None:
            self.pending.append(snapshot)
        yield
        if snapshot is not None:
            self.pending.remove(snapshot)
        self.begin_step(claim, snapshot)


def transfer_call(
    step_name: str = "credit",
    phase: str = "action",
    *,
    source: str = "acc-a",
    destination: str = "acc-b",
) -> TransferCall:
    request = TransferRequest.parse(
        {
            "idempotency_key": "key-1",
            "source_account": source,
            "destination_account": destination,
            "currency": "EUR",
            "amount": "100.00",
        }
    )
    step_index = [step.name for step in TRANSFER_SAGA.steps].index(step_name)
    snapshot = Snapshot(
        saga_id="transfer-key-1",
        saga_type="transfer",
        step_index=step_index,
        step_name=step_name,
        status=SagaStatus.RUNNING,
        data={},
        compensation_stack=[],
        recorded_at=datetime(2025, 1, 1, tzinfo=UTC),
    )
    return TRANSFER_SAGA.call_type(
        saga_id="transfer-key-1",
        saga_type="transfer",
        step_index=step_index,
        step_name=step_name,
        phase=phase,
        run_chain=RUN_CHAIN,
        request=request,
        state=TransferState(),
        snapshot=snapshot,
    )


def run_guarded(
    env: ActivityEnvironment,
    call: TransferCall,
    store: RecordingSnapshotStore,
    faults: FaultPlan,
    body: Callable[[], None],
    *,
    same_transaction: bool = False,
) -> None:
    """Run `body` as the effect of a sync activity wrapped in step_guard."""

    def activity_fn() -> None:
        with step_guard(call, store, faults, same_transaction=same_transaction):
            body()

    env.run(activity_fn)


def at_attempt(env: ActivityEnvironment, attempt: int) -> ActivityEnvironment:
    """The environment, now reporting `attempt` as the activity's attempt number."""
    env.info = dataclasses.replace(env.info, attempt=attempt)
    return env
