"""The FX transfer request: what a service sends to move money across two currencies."""

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


class FxRequest(SagaRequest):
    """`source_amount` (a decimal string in `source_currency`) leaves `source_account`; its
    conversion at the rate quoted by the first step reaches `destination_account`."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    source_account: str = Field(description="Account debited, held in source_currency.")
    destination_account: str = Field(description="Account credited, held in target_currency.")
    source_currency: str = Field(description="ISO 4217 code of the money sent, e.g. EUR.")
    target_currency: str = Field(description="ISO 4217 code of the money received, e.g. JPY.")
    source_amount: str = Field(description="Positive decimal string in source_currency.")
    reference: str = Field(default="", description="Free text for statements, up to 140 chars.")

    @field_validator("source_account", "destination_account")
    @classmethod
    def _check_account(cls, value: str, info: Any) -> str:
        return check_account_id(value, info.field_name)

    @field_validator("source_currency", "target_currency")
    @classmethod
    def _check_currency(cls, value: str, info: Any) -> str:
        currency(value, field=info.field_name)
        return value

    @field_validator("reference")
    @classmethod
    def _check_reference(cls, value: str) -> str:
        return check_text(value, "reference", max_length=140)

    @model_validator(mode="after")
    def _check_fx(self) -> FxRequest:
        self.source_money  # noqa: B018 - parsing is the check: it names the field it refuses
        if self.target_currency == self.source_currency:
            raise InvalidRequestError("target_currency", "must differ from source_currency")
        if self.destination_account == self.source_account:
            raise InvalidRequestError("destination_account", "must differ from source_account")
        return self

    @property
    def source_money(self) -> Money:
        return parse_money(self.source_amount, self.source_currency, field="source_amount")

    def amounts(self) -> dict[str, Money]:
        return {"source_amount": self.source_money}

    def account_fields(self) -> dict[str, str]:
        return {
            "source_account": self.source_account,
            "destination_account": self.destination_account,
        }

    def account_currencies(self) -> dict[str, str]:
        return {
            "source_account": self.source_currency,
            "destination_account": self.target_currency,
        }

    def summary(self) -> str:
        return (
            f"FX {self.source_money} → {self.target_currency} "
            f"{self.source_account} → {self.destination_account}"
        )
