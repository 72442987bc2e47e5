"""A payout defined only in the tests: debit into clearing, then `send` (the pivot, with an
inquiry) out to the world through @funding, then `confirm`, which must never be undone."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from sagas import (
    Money,
    SagaDefinition,
    SagaRequest,
    StepCall,
    StepDefinition,
    parse_money,
    retry_spec,
)

QUICK = retry_spec(first_interval_s=1, multiplier=2, max_retries=2, max_interval_s=4)
CLEARING = "test-payout-clearing"


class PayoutRequest(SagaRequest):
    model_config = ConfigDict(frozen=True, extra="forbid")

    account: str
    amount: str

    @property
    def money(self) -> Money:
        return parse_money(self.amount, "EUR")

    def account_fields(self) -> dict[str, str]:
        return {"account": self.account}

    def account_currencies(self) -> dict[str, str]:
        return {"account": "EUR"}


class PayoutState(BaseModel):
    model_config = ConfigDict(frozen=True)

    debit_entry: int | None = None
    sent_entry: int | None = None
    confirmed: bool = False


PayoutCall = StepCall[PayoutRequest, PayoutState]


def _step(
    name: str, *, pivot: bool = False, inquiry: bool = False
) -> StepDefinition[PayoutRequest]:
    return StepDefinition(
        name=name,
        action=f"test-payout.{name}",
        compensation=f"test-payout.{name}.compensation",
        action_retry=QUICK,
        compensation_retry=QUICK,
        describe_action=lambda r: f"{name} {r.money}",
        describe_compensation=lambda r: f"undo {name} {r.money}",
        pivot=pivot,
        inquiry=f"test-payout.{name}.inquiry" if inquiry else None,
    )


PAYOUT_SAGA = SagaDefinition(
    saga_type="test-payout",
    request_type=PayoutRequest,
    state_type=PayoutState,
    steps=(
        _step("debit", inquiry=True),
        _step("send", pivot=True, inquiry=True),
        _step("confirm"),
    ),
)
