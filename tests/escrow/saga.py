"""Escrow: hold the payer's money, then release it to the payee; each step compensable."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, model_validator

from sagas import (
    InvalidRequestError,
    Money,
    SagaDefinition,
    SagaRequest,
    StepCall,
    StepDefinition,
    parse_money,
    retry_spec,
)

QUICK = retry_spec(first_interval_s=1, multiplier=1, max_retries=1, max_interval_s=1)


class EscrowRequest(SagaRequest):
    model_config = ConfigDict(frozen=True, extra="forbid")

    payer: str = Field(min_length=1, max_length=64)
    payee: str = Field(min_length=1, max_length=64)
    currency: str
    amount: str

    @model_validator(mode="after")
    def _check(self) -> EscrowRequest:
        parse_money(self.amount, self.currency)
        if self.payer == self.payee:
            raise InvalidRequestError("payee", "must differ from payer")
        return self

    @property
    def money(self) -> Money:
        return parse_money(self.amount, self.currency)

    def account_fields(self) -> dict[str, str]:
        return {"payer": self.payer, "payee": self.payee}

    def account_currencies(self) -> dict[str, str]:
        return dict.fromkeys(self.account_fields(), self.currency)

    def summary(self) -> str:
        return f"Escrow {self.money} {self.payer} → {self.payee}"


class EscrowState(BaseModel):
    model_config = ConfigDict(frozen=True)

    hold_key: str | None = None
    release_entry_id: int | None = None


EscrowCall = StepCall[EscrowRequest, EscrowState]


def _step(name: str) -> StepDefinition[EscrowRequest]:
    return StepDefinition(
        name=name,
        action=f"escrow.{name}",
        compensation=f"escrow.{name}.compensation",
        action_retry=QUICK,
        compensation_retry=QUICK,
        describe_action=lambda r: f"escrow {name} {r.money}",
        describe_compensation=lambda r: f"undo escrow {name} {r.money}",
    )


ESCROW_SAGA = SagaDefinition(
    saga_type="escrow",
    request_type=EscrowRequest,
    state_type=EscrowState,
    steps=(_step("hold"), _step("release")),
)
