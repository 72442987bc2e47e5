"""The fee-collection request: what a service sends to charge a customer a fee."""

from __future__ import annotations

from pydantic import ConfigDict, Field, field_validator, model_validator

from sagas.engine import SagaRequest
from sagas.foundations import Money, check_account_id, check_text, currency, parse_money


class FeeRequest(SagaRequest):
    """A fee charged to `customer_account`: `fee` to fee income, `tax` (if any) to tax payable.

    Amounts are decimal strings in `currency` (e.g. "2.50"); the customer pays their sum.
    """

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    customer_account: str = Field(description="Account charged.")
    currency: str = Field(description="ISO 4217 code, upper case, e.g. EUR.")
    fee: str = Field(description="Positive decimal string: the fee income.")
    tax: str = Field(default="0", description="Decimal string, zero or more: tax on the fee.")
    reference: str = Field(default="", description="Free text for statements, up to 140 chars.")

    @field_validator("customer_account")
    @classmethod
    def _check_account(cls, value: str) -> str:
        return check_account_id(value, "customer_account")

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
    def _check_amounts(self) -> FeeRequest:
        self.fee_money  # noqa: B018 - parsing is the check: it names the field it refuses
        self.tax_money  # noqa: B018
        return self

    @property
    def fee_money(self) -> Money:
        return parse_money(self.fee, self.currency, field="fee")

    @property
    def tax_money(self) -> Money:
        return parse_money(self.tax, self.currency, field="tax", allow_zero=True)

    @property
    def total(self) -> Money:
        """What the customer pays."""
        return self.fee_money + self.tax_money

    def amounts(self) -> dict[str, Money]:
        return {"fee": self.fee_money, "tax": self.tax_money}

    def account_fields(self) -> dict[str, str]:
        return {"customer_account": self.customer_account}

    def account_currencies(self) -> dict[str, str]:
        return {"customer_account": self.currency}

    def summary(self) -> str:
        return f"Fee {self.total} from {self.customer_account}"
