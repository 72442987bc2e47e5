"""The external payout's request: money from a customer's account to a beneficiary outside."""

from __future__ import annotations

from datetime import timedelta

from pydantic import ConfigDict, Field, field_validator, model_validator

from sagas.engine import SagaRequest
from sagas.foundations import (
    InvalidRequestError,
    Money,
    check_account_id,
    check_text,
    currency,
    parse_money,
)

MAX_SETTLE_WAIT_SECONDS = 7 * 24 * 3600
SETTLE_WAIT = timedelta(hours=1)
"""How long a payout waits for its settlement callback unless its request says otherwise."""


class PayoutRequest(SagaRequest):
    """`amount` (a decimal string in `currency`) from `account` to `beneficiary`, the account
    at the payment provider's end."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    account: str = Field(description="The customer's account paid out from.")
    beneficiary: str = Field(description="Where the provider sends the money, e.g. an IBAN.")
    currency: str = Field(description="ISO 4217 code, upper case, e.g. EUR.")
    amount: str = Field(description="Positive decimal string, e.g. 120.00.")
    reference: str = Field(default="", description="Free text for statements, up to 140 chars.")
    settle_wait_seconds: int = Field(
        default=int(SETTLE_WAIT.total_seconds()),
        description="How long to wait for the provider's settlement callback before asking it "
        f"(the rail's usual settlement time), 1 to {MAX_SETTLE_WAIT_SECONDS} seconds.",
    )

    @field_validator("account")
    @classmethod
    def _check_account(cls, value: str) -> str:
        return check_account_id(value, "account")

    @field_validator("beneficiary")
    @classmethod
    def _check_beneficiary(cls, value: str) -> str:
        if not value:
            raise InvalidRequestError("beneficiary", "must not be empty")
        return check_text(value, "beneficiary", max_length=64)

    @field_validator("currency")
    @classmethod
    def _check_currency(cls, value: str) -> str:
        currency(value)
        return value

    @field_validator("settle_wait_seconds")
    @classmethod
    def _check_settle_wait(cls, value: int) -> int:
        if not 1 <= value <= MAX_SETTLE_WAIT_SECONDS:
            raise InvalidRequestError(
                "settle_wait_seconds", f"must be in [1, {MAX_SETTLE_WAIT_SECONDS}]"
            )
        return value

    @field_validator("reference")
    @classmethod
    def _check_reference(cls, value: str) -> str:
        return check_text(value, "reference", max_length=140)

    @model_validator(mode="after")
    def _check_amount(self) -> PayoutRequest:
        self.money  # noqa: B018 - parsing is the check: it names the field it refuses
        return self

    @property
    def money(self) -> Money:
        return parse_money(self.amount, self.currency)

    def amounts(self) -> dict[str, Money]:
        return {"amount": self.money}

    def account_fields(self) -> dict[str, str]:
        return {"account": self.account}

    def account_currencies(self) -> dict[str, str]:
        return {"account": self.currency}

    def summary(self) -> str:
        return f"Payout {self.money} from {self.account} to {self.beneficiary}"
