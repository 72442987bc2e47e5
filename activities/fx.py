"""The FX transfer's effects: a quote from the rate source, then the ledger, in the step guard."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime

from temporalio import activity

from sagas.engine import FaultPlan, step_guard
from sagas.foundations import Money
from sagas.fx import (
    DEMO_RATES,
    FX_ENTRY,
    FX_POSITION,
    FixedRateSource,
    FxCall,
    FxRequest,
    FxState,
    QuoteExpiredError,
    RateSource,
    convert_amount,
)
from sagas.ledger import Ledger, Leg, system_account_id


def fx_legs(request: FxRequest, target: Money) -> list[Leg]:
    """Source to its currency's position, the target's position to the destination: each
    currency's legs sum to zero."""
    source = request.source_money
    return [
        Leg(request.source_account, -source),
        Leg(system_account_id(FX_POSITION, request.source_currency), source),
        Leg(system_account_id(FX_POSITION, request.target_currency), -target),
        Leg(request.destination_account, target),
    ]


def workflow_time(call: FxCall) -> datetime:
    """When the saga scheduled the step, by Temporal's clock; for a call scheduled before
    calls carried that time, when Temporal scheduled this attempt."""
    if call.scheduled_at is not None:
        return call.scheduled_at
    return activity.info().current_attempt_scheduled_time


class FxActivities:
    def __init__(
        self,
        ledger: Ledger,
        faults: FaultPlan,
        rates: RateSource | None = None,
    ) -> None:
        self.ledger = ledger
        self.faults = faults
        self.rates = rates if rates is not None else FixedRateSource(DEMO_RATES)

    @activity.defn(name="fx-transfer.quote")
    def quote(self, call: FxCall) -> FxState:
        request = call.request
        with step_guard(call, self.ledger, self.faults):
            quote = self.rates.quote(
                request.source_currency, request.target_currency, workflow_time(call)
            )
            conversion = convert_amount(request.source_money, quote.rate, request.target_currency)
        return call.state.model_copy(
            update={
                "rate": quote.rate,
                "quote_expires_at": quote.expires_at,
                "target_amount": conversion.target.amount_text(),
                "remainder": str(conversion.remainder),
            }
        )

    @activity.defn(name="fx-transfer.reserve")
    def reserve(self, call: FxCall) -> FxState:
        request = call.request
        with self._guard(call):
            self._check_quote(call)
            hold = self.ledger.place_hold(
                call.effect_key(),
                request.source_account,
                request.source_money,
                saga_id=call.saga_id,
            )
        return call.state.model_copy(update={"hold_key": hold.hold_key})

    @activity.defn(name="fx-transfer.reserve.compensation")
    def compensate_reserve(self, call: FxCall) -> None:
        with self._guard(call):
            self.ledger.void_hold(call.action_key(), saga_id=call.saga_id)

    @activity.defn(name="fx-transfer.convert")
    def convert(self, call: FxCall) -> FxState:
        request = call.request
        with self._guard(call):
            rate = self._check_quote(call)
            target = convert_amount(request.source_money, rate, request.target_currency).target
            entry = self.ledger.post(
                call.effect_key(),
                fx_legs(request, target),
                kind=FX_ENTRY,
                saga_id=call.saga_id,
                consume_hold=call.action_key("reserve"),
            )
        return call.state.model_copy(update={"fx_entry_id": entry.entry_id})

    @activity.defn(name="fx-transfer.convert.compensation")
    def compensate_convert(self, call: FxCall) -> None:
        with self._guard(call):
            self.ledger.reverse(call.effect_key(), call.action_key(), saga_id=call.saga_id)

    def _check_quote(self, call: FxCall) -> str:
        """The locked rate, or QuoteExpiredError once its offer had ended when the saga
        scheduled the step (workflow time: the same on every worker)."""
        state = call.state
        if state.rate is None or state.quote_expires_at is None:
            raise QuoteExpiredError("no rate was locked for this saga")
        if workflow_time(call) >= state.quote_expires_at:
            raise QuoteExpiredError(f"the rate {state.rate} expired at {state.quote_expires_at}")
        return state.rate

    def _guard(self, call: FxCall) -> AbstractContextManager[None]:
        # Every effect is a transaction on the ledger: claim and snapshot commit with it.
        return step_guard(call, self.ledger, self.faults, same_transaction=True)

    def all(self) -> list[Callable[..., object]]:
        return [
            self.quote,
            self.reserve,
            self.compensate_reserve,
            self.convert,
            self.compensate_convert,
        ]
