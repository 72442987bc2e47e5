"""The activity side of every step: snapshot first, faults if configured, errors translated."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Protocol

from temporalio import activity
from temporalio.exceptions import ApplicationError

from sagas._definition import StepCall
from sagas._errors import BusinessError, FundsagaError, InvalidRequestError
from sagas._faults import FaultPlan
from sagas._snapshot import Snapshot


class SnapshotStore(Protocol):
    def snapshot_first(self, snapshot: Snapshot) -> AbstractContextManager[None]:
        """Make `snapshot` durable no later than the first write the block commits."""
        ...


def _touched(call: StepCall[Any, Any]) -> frozenset[str]:
    accounts: frozenset[str] = call.request.touched_accounts()
    return accounts


def to_application_error(err: FundsagaError, attempt: int) -> ApplicationError:
    """An error as it crosses into Temporal: typed by class name, non-retryable if business."""
    non_retryable = isinstance(err, BusinessError | InvalidRequestError)
    return ApplicationError(
        str(err), {"attempt": attempt}, type=type(err).__name__, non_retryable=non_retryable
    )


@contextmanager
def step_guard(
    call: StepCall[Any, Any],
    store: SnapshotStore,
    faults: FaultPlan,
) -> Iterator[None]:
    """Wrap a step activity's effect.

    The snapshot is committed before or with the effect's own transaction, so it is durable
    no later than the effect, without costing the workflow a round trip.
    """
    attempt = activity.info().attempt if activity.in_activity() else 1
    accounts = _touched(call)
    snapshot_first: AbstractContextManager[None] = (
        nullcontext()
        if call.snapshot is None
        else store.snapshot_first(call.snapshot.model_copy(update={"attempt": attempt}))
    )
    try:
        with snapshot_first:
            faults.before_effect(call.step_name, call.phase, attempt, accounts)
            yield
            faults.after_effect(call.step_name, call.phase, attempt, accounts)
    except FundsagaError as err:
        raise to_application_error(err, attempt) from err
