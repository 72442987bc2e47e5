"""The end-of-day sweep request: what a schedule (or a service) sends to sweep an account."""

from __future__ import annotations

from typing import Any

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


class SweepRequest(SagaRequest):
    """Move what `operating_account` has available above `threshold` to `treasury_account`.

    `threshold` is a decimal string in `currency` (e.g. "5000.00"), zero or more; the amount
    moved is computed when the sweep runs, not when it is asked for.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    operating_account: str = Field(description="Account swept; keeps `threshold` available.")
    treasury_account: str = Field(description="Account the money above the threshold goes to.")
    currency: str = Field(description="ISO 4217 code of both accounts, upper case, e.g. EUR.")
    threshold: str = Field(description="Decimal string, zero or more: what the account keeps.")
    reference: str = Field(default="", description="Free text for statements, up to 140 chars.")

    @field_validator("operating_account", "treasury_account")
    @classmethod
    def _check_account(cls, value: str, info: Any) -> str:
        return check_account_id(value, info.field_name)

    @field_validator("currency")
    @classmethod
    def _check_currency(cls, value: str) -> str:
        currency(value)
        return value

    @field_validator("reference")
    @classmethod
    def _check_reference(cls, value: str) -> str:
        return check_text(value, "reference", max_length=140)

    @model_validator(mode="after")
    def _check(self) -> SweepRequest:
        self.threshold_money  # noqa: B018 - parsing is the check: it names the field it refuses
        if self.treasury_account == self.operating_account:
            raise InvalidRequestError("treasury_account", "must differ from operating_account")
        return self

    @property
    def threshold_money(self) -> Money:
        return parse_money(self.threshold, self.currency, field="threshold", allow_zero=True)

    def amounts(self) -> dict[str, Money]:
        return {"threshold": self.threshold_money}

    def account_fields(self) -> dict[str, str]:
        return {
            "operating_account": self.operating_account,
            "treasury_account": self.treasury_account,
        }

    def account_currencies(self) -> dict[str, str]:
        return dict.fromkeys(self.account_fields(), self.currency)

    def summary(self) -> str:
        return (
            f"Sweep {self.operating_account} above {self.threshold_money} "
            f"to {self.treasury_account}"
        )
