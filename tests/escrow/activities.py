"""The escrow's ledger effects, each inside the engine's step guard."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from temporalio import activity

from sagas import FaultPlan, step_guard
from sagas.ledger import Ledger
from tests.escrow.saga import EscrowCall, EscrowState


class EscrowActivities:
    def __init__(self, ledger: Ledger, faults: FaultPlan) -> None:
        self.ledger = ledger
        self.faults = faults

    @activity.defn(name="escrow.hold")
    def hold(self, call: EscrowCall) -> EscrowState:
        with self._guard(call):
            hold = self.ledger.place_hold(
                call.effect_key(), call.request.payer, call.request.money, saga_id=call.saga_id
            )
        return call.state.model_copy(update={"hold_key": hold.hold_key})

    @activity.defn(name="escrow.hold.compensation")
    def compensate_hold(self, call: EscrowCall) -> None:
        with self._guard(call):
            self.ledger.void_hold(call.action_key(), saga_id=call.saga_id)

    @activity.defn(name="escrow.release")
    def release(self, call: EscrowCall) -> EscrowState:
        with self._guard(call):
            entry = self.ledger.capture_hold(
                call.effect_key(), call.action_key("hold"), call.request.payee, saga_id=call.saga_id
            )
        return call.state.model_copy(update={"release_entry_id": entry.entry_id})

    @activity.defn(name="escrow.release.compensation")
    def compensate_release(self, call: EscrowCall) -> None:
        with self._guard(call):
            self.ledger.reverse(call.effect_key(), call.action_key(), saga_id=call.saga_id)

    def _guard(self, call: EscrowCall) -> AbstractContextManager[None]:
        return step_guard(call, self.ledger, self.faults, same_transaction=True)

    def all(self) -> list[Callable[..., object]]:
        return [self.hold, self.compensate_hold, self.release, self.compensate_release]
