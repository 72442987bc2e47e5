"""The end-of-day sweep's ledger effect, inside the engine's step guard."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager

from temporalio import activity

from sagas.engine import FaultPlan, step_guard
from sagas.foundations import Money
from sagas.ledger import Ledger
from sagas.sweep import SWEEP_ENTRY, SweepCall, SweepState


class SweepActivities:
    def __init__(self, ledger: Ledger, faults: FaultPlan) -> None:
        self.ledger = ledger
        self.faults = faults

    @activity.defn(name="eod-sweep.sweep")
    def sweep(self, call: SweepCall) -> SweepState:
        request = call.request
        with self._guard(call):
            entry = self.ledger.sweep(
                call.effect_key(),
                request.operating_account,
                request.treasury_account,
                keep=request.threshold_money,
                kind=SWEEP_ENTRY,
                saga_id=call.saga_id,
            )
        if entry is None:
            swept = Money.of(0, request.currency)
            return call.state.model_copy(update={"swept": swept.amount_text()})
        credit = next(p.amount for p in entry.postings if p.account_id == request.treasury_account)
        update = {"swept": credit.amount_text(), "sweep_entry_id": entry.entry_id}
        return call.state.model_copy(update=update)

    @activity.defn(name="eod-sweep.sweep.compensation")
    def compensate_sweep(self, call: SweepCall) -> None:
        with self._guard(call):
            self.ledger.reverse(call.effect_key(), call.action_key(), saga_id=call.saga_id)

    def _guard(self, call: SweepCall) -> AbstractContextManager[None]:
        # The effect is one ledger transaction: claim and snapshot commit with it.
        return step_guard(call, self.ledger, self.faults, same_transaction=True)

    def all(self) -> list[Callable[..., object]]:
        return [self.sweep, self.compensate_sweep]
