"""The fee collection's ledger effects, each inside the engine's step guard."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from temporalio import activity

from sagas.engine import FaultPlan, step_guard
from sagas.fees import FEE_ENTRY, FEE_INCOME, TAX_PAYABLE, FeeCall, FeeRequest, FeeState
from sagas.ledger import Ledger, Leg, system_account_id


def fee_legs(request: FeeRequest) -> list[Leg]:
    """The customer pays fee plus tax; the fee is income, the tax is owed."""
    legs = [
        Leg(request.customer_account, -request.total),
        Leg(system_account_id(FEE_INCOME, request.currency), request.fee_money),
    ]
    if request.tax_money.minor:
        legs.append(Leg(system_account_id(TAX_PAYABLE, request.currency), request.tax_money))
    return legs


class FeeActivities:
    def __init__(self, ledger: Ledger, faults: FaultPlan) -> None:
        self.ledger = ledger
        self.faults = faults

    @activity.defn(name="fee-collection.reserve")
    def reserve(self, call: FeeCall) -> FeeState:
        request = call.request
        with self._guard(call):
            hold = self.ledger.place_hold(
                call.effect_key(), request.customer_account, request.total, saga_id=call.saga_id
            )
        return call.state.model_copy(update={"hold_key": hold.hold_key})

    @activity.defn(name="fee-collection.reserve.compensation")
    def compensate_reserve(self, call: FeeCall) -> None:
        with self._guard(call):
            self.ledger.void_hold(call.action_key(), saga_id=call.saga_id)

    @activity.defn(name="fee-collection.charge")
    def charge(self, call: FeeCall) -> FeeState:
        with self._guard(call):
            entry = self.ledger.post(
                call.effect_key(),
                fee_legs(call.request),
                kind=FEE_ENTRY,
                saga_id=call.saga_id,
                consume_hold=call.action_key("reserve"),
            )
        return call.state.model_copy(update={"fee_entry_id": entry.entry_id})

    @activity.defn(name="fee-collection.charge.compensation")
    def compensate_charge(self, call: FeeCall) -> None:
        with self._guard(call):
            self.ledger.reverse(call.effect_key(), call.action_key(), saga_id=call.saga_id)

    def _guard(self, call: FeeCall) -> AbstractContextManager[None]:
        # Every effect is a transaction on the ledger: claim and snapshot commit with it.
        return step_guard(call, self.ledger, self.faults, same_transaction=True)

    def all(self) -> list[Callable[..., object]]:
        return [self.reserve, self.compensate_reserve, self.charge, self.compensate_charge]
