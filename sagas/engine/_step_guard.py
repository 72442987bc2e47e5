"""The activity side of every step: snapshot first, faults if configured, errors translated."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Protocol

from temporalio import activity
from temporalio.exceptions import ApplicationError

from sagas.engine._definition import StepCall
from sagas.engine._faults import FaultPlan
from sagas.engine._snapshot import Snapshot
from sagas.foundations import FundsagaError, is_non_retryable


class SnapshotStore(Protocol):
    def record_snapshot(self, snapshot: Snapshot) -> None:
        """Commit `snapshot` now, in a transaction of its own."""
        ...

    def snapshot_first(self, snapshot: Snapshot) -> AbstractContextManager[None]:
        """Insert `snapshot` first in the block's first transaction of this store, or commit it
        alone as the block ends if none committed."""
        ...


def _touched(call: StepCall[Any, Any]) -> frozenset[str]:
    accounts: frozenset[str] = call.request.touched_accounts()
    return accounts


def to_application_error(err: FundsagaError, attempt: int) -> ApplicationError:
    """An error as it crosses into Temporal: typed by class name, non-retryable if business."""
    non_retryable = is_non_retryable(err)
    return ApplicationError(
        str(err), {"attempt": attempt}, type=type(err).__name__, non_retryable=non_retryable
    )


@contextmanager
def step_guard(
    call: StepCall[Any, Any],
    store: SnapshotStore,
    faults: FaultPlan,
    *,
    same_transaction: bool = False,
) -> Iterator[None]:
    """Wrap a step activity's effect, recording the step's snapshot without a workflow round trip.

    By default the snapshot commits in its own transaction before the effect starts. With
    `same_transaction`, for an effect made only of transactions on `store` (a ledger step), it
    is inserted first in the effect's own transaction instead: one commit fewer, and still no
    effect can be durable without its snapshot. A step with any other effect (an external
    API) must keep the default.
    """
    attempt = activity.info().attempt if activity.in_activity() else 1
    accounts = _touched(call)
    try:
        with _recording(store, call.snapshot, attempt, same_transaction=same_transaction):
            faults.before_effect(call.step_name, call.phase, attempt, accounts)
            yield
            faults.after_effect(call.step_name, call.phase, attempt, accounts)
    except FundsagaError as err:
        raise to_application_error(err, attempt) from err


def _recording(
    store: SnapshotStore, snapshot: Snapshot | None, attempt: int, *, same_transaction: bool
) -> AbstractContextManager[None]:
    if snapshot is None:
        return nullcontext()
    snapshot = snapshot.model_copy(update={"attempt": attempt})
    if same_transaction:
        return store.snapshot_first(snapshot)
    store.record_snapshot(snapshot)
    return nullcontext()
