"""The external payout's effects: ledger postings inside the engine's step guard, and the
payment provider's API for authorize, submit (and its inquiry) and settle."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

from temporalio import activity

from activities.provider import ProviderClient
from sagas.engine import FaultPlan, Inquiry, end_to_end_id, step_guard
from sagas.foundations import Settings
from sagas.ledger import Ledger, Leg, funding_account_id, system_account_id
from sagas.payouts import (
    EXTERNAL_PAYOUT,
    PAYOUT_CLEARING,
    PAYOUT_ENTRY,
    SETTLED_EVENT,
    PayoutCall,
    PayoutDeclinedError,
    PayoutState,
    SettlementPendingError,
)

TAKEN = frozenset({"accepted", "settled"})


def provider_key(call: PayoutCall) -> str:
    """The payout's key at the provider: the submit step's own effect key."""
    return call.action_key("submit")


class PayoutActivities:
    def __init__(
        self, ledger: Ledger, faults: FaultPlan, provider: ProviderClient, webhook_url: str = ""
    ) -> None:
        self.ledger = ledger
        self.faults = faults
        self.provider = provider
        self.webhook_url = webhook_url.rstrip("/")

    @classmethod
    def from_settings(
        cls, ledger: Ledger, faults: FaultPlan, settings: Settings
    ) -> PayoutActivities:
        provider = ProviderClient(settings.provider_url, settings.provider_timeout)
        return cls(ledger, faults, provider, settings.webhook_url)

    @activity.defn(name=f"{EXTERNAL_PAYOUT}.reserve")
    def reserve(self, call: PayoutCall) -> PayoutState:
        request = call.request
        with self._ledger_guard(call):
            hold = self.ledger.place_hold(
                call.effect_key(), request.account, request.money, saga_id=call.saga_id
            )
        return call.state.model_copy(update={"hold_key": hold.hold_key})

    @activity.defn(name=f"{EXTERNAL_PAYOUT}.reserve.compensation")
    def compensate_reserve(self, call: PayoutCall) -> None:
        with self._ledger_guard(call):
            self.ledger.void_hold(call.action_key(), saga_id=call.saga_id)

    @activity.defn(name=f"{EXTERNAL_PAYOUT}.authorize")
    def authorize(self, call: PayoutCall) -> PayoutState:
        with self._provider_guard(call):
            self.provider.validate(self._payout(call))
        return call.state.model_copy(update={"authorized": True})

    @activity.defn(name=f"{EXTERNAL_PAYOUT}.capture")
    def capture(self, call: PayoutCall) -> PayoutState:
        money = call.request.money
        clearing = system_account_id(PAYOUT_CLEARING, call.request.currency)
        with self._ledger_guard(call):
            entry = self.ledger.post(
                call.effect_key(),
                [Leg(call.request.account, -money), Leg(clearing, money)],
                kind=PAYOUT_ENTRY,
                saga_id=call.saga_id,
                consume_hold=call.action_key("reserve"),
            )
        return call.state.model_copy(update={"capture_entry_id": entry.entry_id})

    @activity.defn(name=f"{EXTERNAL_PAYOUT}.capture.compensation")
    def compensate_capture(self, call: PayoutCall) -> None:
        with self._ledger_guard(call):
            self.ledger.reverse(call.effect_key(), call.action_key(), saga_id=call.saga_id)

    @activity.defn(name=f"{EXTERNAL_PAYOUT}.submit")
    def submit(self, call: PayoutCall) -> PayoutState:
        with self._provider_guard(call):
            status = self.provider.submit(self._payout(call))
        return call.state.model_copy(update={"provider_status": status})

    @activity.defn(name=f"{EXTERNAL_PAYOUT}.submit.inquiry")
    def ask_submitted(self, call: PayoutCall) -> Inquiry:
        status = self.provider.status(provider_key(call))
        if status in TAKEN:
            return Inquiry.executed(call.state.model_copy(update={"provider_status": status}))
        if status == "unknown":
            return Inquiry.unknown()
        return Inquiry.not_executed()

    @activity.defn(name=f"{EXTERNAL_PAYOUT}.settle")
    def settle(self, call: PayoutCall) -> PayoutState:
        money = call.request.money
        clearing = system_account_id(PAYOUT_CLEARING, call.request.currency)
        with self._provider_guard(call):
            status = self._settlement_status(call)
            if status == "declined":
                raise PayoutDeclinedError("the provider declined the payout after taking it")
            if status != "settled":
                raise SettlementPendingError(f"the provider has the payout as {status}")
            entry = self.ledger.post(
                call.effect_key(),
                [Leg(clearing, -money), Leg(funding_account_id(call.request.currency), money)],
                kind=PAYOUT_ENTRY,
                saga_id=call.saga_id,
            )
        return call.state.model_copy(
            update={"provider_status": status, "settlement_entry_id": entry.entry_id}
        )

    def _settlement_status(self, call: PayoutCall) -> str:
        """The provider's own word, asked now. The callback (or its timeout) only says when to
        ask: the webhook receiver authenticates no caller, so a callback is never trusted."""
        return self.provider.status(provider_key(call)) or "unknown-key"

    def _payout(self, call: PayoutCall) -> dict[str, Any]:
        request = call.request
        body: dict[str, Any] = {
            "key": provider_key(call),
            "account": request.beneficiary,
            "amount": request.money.amount_text(),
            "currency": request.currency,
            "end_to_end_id": end_to_end_id(provider_key(call)),
        }
        if self.webhook_url:
            path = f"/events/{EXTERNAL_PAYOUT}/{request.idempotency_key}/{SETTLED_EVENT}"
            body["callback_url"] = self.webhook_url + path
        return body

    def _ledger_guard(self, call: PayoutCall) -> AbstractContextManager[None]:
        return step_guard(call, self.ledger, self.faults, same_transaction=True)

    def _provider_guard(self, call: PayoutCall) -> AbstractContextManager[None]:
        # An external effect: claim and snapshot commit before the request goes out.
        return step_guard(call, self.ledger, self.faults)

    def all(self) -> list[Callable[..., object]]:
        return [
            self.reserve,
            self.compensate_reserve,
            self.authorize,
            self.capture,
            self.compensate_capture,
            self.submit,
            self.ask_submitted,
            self.settle,
        ]
