"""Benchmark activities: no-ops for the BARE ceiling, and the NAIVE transfer's ledger steps.

Registered only by the benchmark worker (tooling.bench), never by a production worker.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager

from pydantic import BaseModel, ConfigDict
from temporalio import activity
from temporalio.exceptions import ApplicationError

from sagas import BusinessError
from sagas.ledger import Ledger, pending_hold_key
from sagas.transfer import TransferRequest, clearing_account


class BareCall(BaseModel):
    """The one input of a BARE no-op activity."""

    model_config = ConfigDict(frozen=True)

    workflow_id: str
    step: str


class NaiveCall(BaseModel):
    """The one input of every NAIVE activity: the saga id keys each ledger effect."""

    model_config = ConfigDict(frozen=True)

    saga_id: str
    request: TransferRequest

    def key(self, step: str, phase: str = "do") -> str:
        return f"{self.saga_id}:{step}:{phase}"


@activity.defn(name="bench.noop")
def noop(call: BareCall) -> None:
    """Does nothing: the activity cost is Temporal's alone."""


@contextmanager
def _business_errors_final() -> Iterator[None]:
    try:
        yield
    except BusinessError as err:
        raise ApplicationError(str(err), type=type(err).__name__, non_retryable=True) from err


class NaiveActivities:
    """One activity per step and per compensation, on the same Ledger calls, no snapshots."""

    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    @activity.defn(name="naive.reserve")
    def reserve(self, call: NaiveCall) -> None:
        request = call.request
        with _business_errors_final():
            self.ledger.place_hold(
                call.key("reserve"), request.source_account, request.money, saga_id=call.saga_id
            )

    @activity.defn(name="naive.capture")
    def capture(self, call: NaiveCall) -> None:
        with _business_errors_final():
            self.ledger.capture_hold(
                call.key("capture"),
                call.key("reserve"),
                clearing_account(call.request),
                saga_id=call.saga_id,
            )

    @activity.defn(name="naive.credit")
    def credit(self, call: NaiveCall) -> None:
        request = call.request
        with _business_errors_final():
            self.ledger.transfer(
                call.key("credit"),
                clearing_account(request),
                request.destination_account,
                request.money,
                saga_id=call.saga_id,
                pending=True,
            )

    @activity.defn(name="naive.settle")
    def settle(self, call: NaiveCall) -> None:
        with _business_errors_final():
            self.ledger.settle(
                call.key("settle"), clearing_account(call.request), saga_id=call.saga_id
            )

    @activity.defn(name="naive.release")
    def release(self, call: NaiveCall) -> None:
        self.ledger.void_hold(pending_hold_key(call.key("credit")), saga_id=call.saga_id)

    @activity.defn(name="naive.reserve.undo")
    def compensate_reserve(self, call: NaiveCall) -> None:
        self.ledger.void_hold(call.key("reserve"), saga_id=call.saga_id)

    @activity.defn(name="naive.capture.undo")
    def compensate_capture(self, call: NaiveCall) -> None:
        self._reverse(call, "capture")

    @activity.defn(name="naive.credit.undo")
    def compensate_credit(self, call: NaiveCall) -> None:
        self.ledger.reverse(
            call.key("credit", "undo"),
            call.key("credit"),
            saga_id=call.saga_id,
            consume_hold=pending_hold_key(call.key("credit")),
        )

    @activity.defn(name="naive.settle.undo")
    def compensate_settle(self, call: NaiveCall) -> None:
        self._reverse(call, "settle")

    def _reverse(self, call: NaiveCall, step: str) -> None:
        self.ledger.reverse(call.key(step, "undo"), call.key(step), saga_id=call.saga_id)

    def all(self) -> list[Callable[..., object]]:
        return [
            self.reserve,
            self.capture,
            self.credit,
            self.settle,
            self.release,
            self.compensate_reserve,
            self.compensate_capture,
            self.compensate_credit,
            self.compensate_settle,
        ]
