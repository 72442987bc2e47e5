"""The activity side of every step: snapshot first, faults if configured, errors translated."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any, Protocol

from temporalio import activity
from temporalio.exceptions import ApplicationError, TemporalError

from sagas.engine._definition import StepCall
from sagas.engine._faults import FaultPlan
from sagas.engine._metrics import step_attempt
from sagas.engine._outcome import REFUSED_FIELD
from sagas.engine._retry import RETRIES_EXHAUSTED, next_retry
from sagas.engine._snapshot import RunClaim, Snapshot
from sagas.engine._step_log import logged_attempt
from sagas.foundations import (
    BusinessError,
    FundsagaError,
    SagaIdReusedError,
    TransientError,
    is_non_retryable,
    retry_class_of,
)


class SnapshotStore(Protocol):
    """Where a step begins: the launch fence's claim and the step's snapshot.

    Both methods claim the saga id for the run chain (a claim is written once and never
    changes) and raise SagaIdReusedError, writing nothing, when another chain holds it.
    """

    def begin_step(self, claim: RunClaim, snapshot: Snapshot | None) -> None:
        """Claim, and record `snapshot` if any, committed now in a transaction of its own."""
        ...

    def begin_step_in_effect(
        self, claim: RunClaim, snapshot: Snapshot | None
    ) -> AbstractContextManager[None]:
        """Claim and record first in the block's first transaction of this store, or commit
        them alone as the block ends if none committed."""
        ...


def _touched(call: StepCall[Any, Any]) -> frozenset[str]:
    accounts: frozenset[str] = call.request.touched_accounts()
    return accounts


def refused_field(err: Exception, call: StepCall[Any, Any] | None) -> str | None:
    """The field of the step's request naming the account a business refusal is about: so a
    saga started past the client's account checks still says which field was refused."""
    if call is None or not isinstance(err, BusinessError) or err.account_id is None:
        return None
    fields = call.request.account_fields().items()
    named = sorted(field for field, account_id in fields if account_id == err.account_id)
    return named[0] if named else None


def to_application_error(
    err: Exception, attempt: int, call: StepCall[Any, Any] | None = None
) -> ApplicationError:
    """An error as it crosses into Temporal: typed by class name, non-retryable if business.

    With the step's call (and so its retry spec), the error's retry class decides the wait
    before the next attempt, or ends the retries (non-retryable, marked `retries_exhausted`).
    `attempt` is the attempt of this run of the activity; the details count earlier runs too.
    """
    earlier = call.earlier_attempts if call is not None else 0
    details: dict[str, object] = {"attempt": earlier + attempt}
    message = str(err)
    field = refused_field(err, call)
    if field is not None:
        details[REFUSED_FIELD] = field
        message = f"{field}: {message}"
    if isinstance(err, SagaIdReusedError):
        details["claimed_by"] = err.claimed_by
    non_retryable = isinstance(err, FundsagaError) and is_non_retryable(err)
    delay = None
    if call is not None and call.retry is not None and not non_retryable:
        retry_after = err.retry_after if isinstance(err, TransientError) else None
        retry_class = retry_class_of(err)
        decided = next_retry(
            call.retry, retry_class, attempt, key=call.effect_key(), retry_after=retry_after
        )
        details["retry_class"] = retry_class.value
        if decided.exhausted:
            details[RETRIES_EXHAUSTED] = True
            non_retryable = True
        delay = decided.delay
    return ApplicationError(
        message,
        details,
        type=type(err).__name__,
        non_retryable=non_retryable,
        next_retry_delay=delay,
    )


@contextmanager
def step_guard(
    call: StepCall[Any, Any],
    store: SnapshotStore,
    faults: FaultPlan,
    *,
    same_transaction: bool = False,
) -> Iterator[None]:
    """Wrap a step activity's effect: the launch fence's claim and the step's snapshot first,
    without a workflow round trip.

    By default claim and snapshot commit in their own transaction before the effect starts, so
    no request goes out for a run that may not take effects. With `same_transaction`, for an
    effect made only of transactions on `store` (a ledger step), they are inserted first in the
    effect's own transaction instead: one commit fewer, and still no effect can be durable
    without them. A step with any other effect (an external API) must keep the default.
    """
    run_attempt = activity.info().attempt if activity.in_activity() else 1
    attempt = call.earlier_attempts + run_attempt
    accounts = _touched(call)
    with step_attempt(call), logged_attempt(call):
        try:
            with _beginning(store, call, attempt, same_transaction=same_transaction):
                faults.before_effect(call.saga_type, call.step_name, call.phase, attempt, accounts)
                yield
                faults.after_effect(call.saga_type, call.step_name, call.phase, attempt, accounts)
        except FundsagaError as err:
            raise to_application_error(err, run_attempt, call) from err
        except TemporalError:
            raise  # a cancel, or a failure already typed for Temporal
        except Exception as err:
            if call.retry is None:
                raise
            raise to_application_error(err, run_attempt, call) from err


def _beginning(
    store: SnapshotStore, call: StepCall[Any, Any], attempt: int, *, same_transaction: bool
) -> AbstractContextManager[None]:
    snapshot = call.snapshot
    if snapshot is not None:
        snapshot = snapshot.model_copy(update={"attempt": attempt})
    if same_transaction:
        return store.begin_step_in_effect(call.claim(), snapshot)
    store.begin_step(call.claim(), snapshot)
    return nullcontext()
