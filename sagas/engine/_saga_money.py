"""What a saga moves, as its definition declares it: amounts, parties and reference, the figures
`sagas list` and `sagas view` show. Kept in the saga's memo from its start, so a listing reads
them from Temporal's visibility (encrypted with the payloads when keys are configured) without
asking a worker."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, JsonValue, ValidationError

from sagas.engine._definition import SagaDefinition, SagaRequest

MONEY_MEMO = "money"
"""The memo key whose value is a saga's `SagaMoney` as JSON, set by whoever starts it."""
NOT_DECLARED = "-"
"""How a figure the saga type does not declare is shown."""


class SagaAmount(BaseModel):
    """One amount a request asks for: a decimal string with the currency's decimals."""

    model_config = ConfigDict(frozen=True)

    amount: str
    currency: str

    def __str__(self) -> str:
        return f"{self.amount} {self.currency}"


class SagaMoney(BaseModel):
    """A saga's amounts (its request's `amounts()`), parties and reference (the request's fields
    its definition names); empty for a saga type that declares none of them."""

    model_config = ConfigDict(frozen=True)

    amounts: dict[str, SagaAmount] = {}
    """Field name → the amount it asks for."""
    parties: dict[str, str] = {}
    """Field name → the party it names, the one paying first."""
    reference: str | None = None

    @classmethod
    def of(cls, definition: SagaDefinition[Any, Any], request: SagaRequest) -> SagaMoney:
        """The request's `amounts()`, and the fields its definition names as `parties` and
        `reference` (an empty one left out)."""
        amounts = {
            name: SagaAmount(amount=money.amount_text(), currency=money.currency.code)
            for name, money in request.amounts().items()
        }
        parties = {name: _text(request, name) for name in definition.parties}
        reference = _text(request, definition.reference) if definition.reference else ""
        return cls(
            amounts=amounts,
            parties={name: party for name, party in parties.items() if party},
            reference=reference or None,
        )

    @classmethod
    def from_memo(cls, value: object) -> SagaMoney:
        """The memo's value as a saga's money; empty when it is absent or not of this shape (a
        saga started by a client that does not set it)."""
        if value is None:
            return cls()
        try:
            return cls.model_validate(value)
        except ValidationError:
            return cls()

    def memo(self) -> dict[str, JsonValue]:
        return self.model_dump(mode="json")

    def amount_text(self) -> str:
        """`100.00 EUR`, each amount led by its field unless the field is `amount`
        (`fee 2.50 EUR, tax 0.50 EUR`, `threshold 5000.00 EUR`)."""
        shown = [
            str(amount) if name == "amount" else f"{name} {amount}"
            for name, amount in self.amounts.items()
        ]
        return ", ".join(shown) or NOT_DECLARED

    def parties_text(self) -> str:
        """`alice → bob`: the parties in their declared order."""
        return " → ".join(self.parties.values()) or NOT_DECLARED

    def reference_text(self) -> str:
        return self.reference or NOT_DECLARED


def _text(request: SagaRequest, field: str) -> str:
    value = getattr(request, field, None)
    return "" if value is None else str(value)
