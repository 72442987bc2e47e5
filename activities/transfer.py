"""The transfer saga's activities: every ledger effect, each idempotent by its step key."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from temporalio import activity

from sagas.engine import FaultPlan, step_guard
from sagas.ledger import Ledger, pending_hold_key
from sagas.transfer import TransferCall, TransferState, clearing_account


class TransferActivities:
    """Actions and compensations of TRANSFER_SAGA, bound to one ledger."""

    def __init__(self, ledger: Ledger, faults: FaultPlan | None = None) -> None:
        self.ledger = ledger
        self.faults = faults or FaultPlan()

    @activity.defn(name="transfer.reserve")
    def reserve(self, call: TransferCall) -> TransferState:
        request = call.request
        with self._guard(call):
            hold = self.ledger.place_hold(
                call.effect_key(),
                request.source_account,
                request.money,
                saga_id=call.saga_id,
                payee=request.destination_account,
            )
        return call.state.model_copy(update={"hold_key": hold.hold_key})

    @activity.defn(name="transfer.reserve.undo")
    def compensate_reserve(self, call: TransferCall) -> None:
        with self._guard(call):
            self.ledger.void_hold(call.action_key(), saga_id=call.saga_id)

    @activity.defn(name="transfer.capture")
    def capture(self, call: TransferCall) -> TransferState:
        request = call.request
        with self._guard(call):
            entry = self.ledger.capture_hold(
                call.effect_key(),
                call.action_key("reserve"),
                clearing_account(request),
                saga_id=call.saga_id,
            )
        return call.state.model_copy(update={"capture_entry_id": entry.entry_id})

    @activity.defn(name="transfer.capture.undo")
    def compensate_capture(self, call: TransferCall) -> None:
        with self._guard(call):
            self.ledger.reverse(call.effect_key(), call.action_key(), saga_id=call.saga_id)

    @activity.defn(name="transfer.credit")
    def credit(self, call: TransferCall) -> TransferState:
        request = call.request
        with self._guard(call):
            entry = self.ledger.transfer(
                call.effect_key(),
                clearing_account(request),
                request.destination_account,
                request.money,
                saga_id=call.saga_id,
                pending=True,
            )
        return call.state.model_copy(update={"credit_entry_id": entry.entry_id})

    @activity.defn(name="transfer.credit.undo")
    def compensate_credit(self, call: TransferCall) -> None:
        credit_key = call.action_key()
        with self._guard(call):
            self.ledger.reverse(
                call.effect_key(),
                credit_key,
                saga_id=call.saga_id,
                consume_hold=pending_hold_key(credit_key),
            )

    @activity.defn(name="transfer.settle")
    def settle(self, call: TransferCall) -> TransferState:
        with self._guard(call):
            entry = self.ledger.settle(
                call.effect_key(), clearing_account(call.request), saga_id=call.saga_id
            )
        return call.state.model_copy(update={"settlement_key": entry.idempotency_key})

    @activity.defn(name="transfer.settle.undo")
    def compensate_settle(self, call: TransferCall) -> None:
        with self._guard(call):
            self.ledger.reverse(call.effect_key(), call.action_key(), saga_id=call.saga_id)

    @activity.defn(name="transfer.release")
    def release(self, call: TransferCall) -> TransferState:
        with self._guard(call):
            hold = self.ledger.void_hold(
                pending_hold_key(call.action_key("credit")), saga_id=call.saga_id
            )
        return call.state.model_copy(update={"released_hold_key": hold.hold_key})

    def _guard(self, call: TransferCall) -> AbstractContextManager[None]:
        """Every effect here is ledger transactions: the snapshot rides in the first of them."""
        return step_guard(call, self.ledger, self.faults, same_transaction=True)

    def all(self) -> list[Callable[..., object]]:
        return [
            self.reserve,
            self.compensate_reserve,
            self.capture,
            self.compensate_capture,
            self.credit,
            self.compensate_credit,
            self.settle,
            self.compensate_settle,
            self.release,
        ]
