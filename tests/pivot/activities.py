"""The test payout's effects: the ledger stands for the payment rail, and a script can make
the rail's answers to inquiries differ from what the ledger holds."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager

from temporalio import activity

from sagas import FaultPlan, Inquiry, InquiryAnswer, step_guard
from sagas.ledger import Ledger, Leg, funding_account_id, system_account_id
from tests.pivot.saga import CLEARING, PayoutCall, PayoutState

RAIL_SCRIPT: dict[str, deque[InquiryAnswer]] = {}
"""Per step, the answers the rail gives before it tells the truth (tests fill it)."""


class PayoutActivities:
    def __init__(self, ledger: Ledger, faults: FaultPlan) -> None:
        self.ledger = ledger
        self.faults = faults

    @activity.defn(name="test-payout.debit")
    def debit(self, call: PayoutCall) -> PayoutState:
        clearing = system_account_id(CLEARING, "EUR")
        money = call.request.money
        with self._guard(call):
            entry = self.ledger.post(
                call.effect_key(),
                [Leg(call.request.account, -money), Leg(clearing, money)],
                kind="test-payout",
                saga_id=call.saga_id,
            )
        return call.state.model_copy(update={"debit_entry": entry.entry_id})

    @activity.defn(name="test-payout.send")
    def send(self, call: PayoutCall) -> PayoutState:
        clearing = system_account_id(CLEARING, "EUR")
        money = call.request.money
        with self._guard(call):
            entry = self.ledger.post(
                call.effect_key(),
                [Leg(clearing, -money), Leg(funding_account_id("EUR"), money)],
                kind="test-payout",
                saga_id=call.saga_id,
            )
        return call.state.model_copy(update={"sent_entry": entry.entry_id})

    @activity.defn(name="test-payout.confirm")
    def confirm(self, call: PayoutCall) -> PayoutState:
        with self._guard(call):
            pass
        return call.state.model_copy(update={"confirmed": True})

    @activity.defn(name="test-payout.debit.inquiry")
    def inquire_debit(self, call: PayoutCall) -> Inquiry:
        return self._inquire(call, "debit_entry")

    @activity.defn(name="test-payout.send.inquiry")
    def inquire_send(self, call: PayoutCall) -> Inquiry:
        return self._inquire(call, "sent_entry")

    def _inquire(self, call: PayoutCall, field: str) -> Inquiry:
        scripted = RAIL_SCRIPT.get(call.step_name)
        if scripted:
            answer = scripted.popleft()
            if answer is not InquiryAnswer.EXECUTED:
                return Inquiry(answer=answer)
        entry = self.ledger.entry(call.action_key())
        if entry is None:
            return Inquiry.not_executed()
        return Inquiry.executed(call.state.model_copy(update={field: entry.entry_id}))

    @activity.defn(name="test-payout.debit.compensation")
    def compensate_debit(self, call: PayoutCall) -> None:
        with self._guard(call):
            self.ledger.reverse(call.effect_key(), call.action_key(), saga_id=call.saga_id)

    @activity.defn(name="test-payout.send.compensation")
    def compensate_send(self, call: PayoutCall) -> None:
        raise AssertionError("the pivot is never compensated")

    @activity.defn(name="test-payout.confirm.compensation")
    def compensate_confirm(self, call: PayoutCall) -> None:
        raise AssertionError("a step after the pivot is never compensated")

    def _guard(self, call: PayoutCall) -> AbstractContextManager[None]:
        return step_guard(call, self.ledger, self.faults, same_transaction=True)

    def all(self) -> list[Callable[..., object]]:
        return [
            self.debit,
            self.send,
            self.confirm,
            self.inquire_debit,
            self.inquire_send,
            self.compensate_debit,
            self.compensate_send,
            self.compensate_confirm,
        ]
