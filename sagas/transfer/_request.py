"""The transfer request: what a service sends to move money between two accounts."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, ValidationError, field_validator, model_validator

from sagas.engine import SagaRequest
from sagas.foundations import (
    InvalidRequestError,
    Money,
    canonical_json,
    check_account_id,
    check_text,
    currency,
    invalid_request_from,
    parse_money,
    sha256_hex,
)


class TransferRequest(SagaRequest):
    """A same-currency transfer. `amount` is a decimal string in `currency` (e.g. "100.00")."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    source_account: str = Field(description="Account debited.")
    destination_account: str = Field(description="Account credited.")
    currency: str = Field(description="ISO 4217 code, upper case, e.g. EUR.")
    amount: str = Field(description="Positive decimal string with at most the currency's decimals.")
    reference: str = Field(default="", description="Free text for statements, up to 140 chars.")

    @field_validator("source_account", "destination_account")
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
    def _check_transfer(self) -> TransferRequest:
        parse_money(self.amount, self.currency)
        if self.source_account == self.destination_account:
            raise InvalidRequestError("destination_account", "must differ from source_account")
        return self

    @classmethod
    def parse(cls, data: dict[str, Any]) -> TransferRequest:
        """Validate untrusted input, raising InvalidRequestError that names the field."""
        try:
            return cls.model_validate(data)
        except ValidationError as err:
            raise invalid_request_from(err) from None

    @property
    def money(self) -> Money:
        return parse_money(self.amount, self.currency)

    def amounts(self) -> dict[str, Money]:
        return {"amount": self.money}

    def account_fields(self) -> dict[str, str]:
        return {
            "source_account": self.source_account,
            "destination_account": self.destination_account,
        }

    def account_currencies(self) -> dict[str, str]:
        return dict.fromkeys(self.account_fields(), self.currency)

    def summary(self) -> str:
        return f"Transfer {self.money} {self.source_account} → {self.destination_account}"

    def fingerprint(self) -> str:
        """A stable hash of what was asked, to tell a retry from a conflicting reuse of the key."""
        fields = self.model_dump(mode="json") | {"amount": self.money.amount_text()}
        return sha256_hex(canonical_json(fields))
