"""An FX request is refused field by field, before anything starts."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sagas import parse_money
from sagas.foundations import invalid_request_from
from sagas.fx import FxRequest

VALID: dict[str, Any] = {
    "idempotency_key": "fx-1",
    "source_account": "src",
    "destination_account": "dst",
    "source_currency": "EUR",
    "target_currency": "JPY",
    "source_amount": "125.50",
}


def refused_field(**changes: Any) -> str:
    """The field the client names when it refuses this request (nothing starts)."""
    with pytest.raises(ValidationError) as refused:
        FxRequest.model_validate(VALID | changes)
    return invalid_request_from(refused.value).field


def test_the_source_amount_is_money_in_the_source_currency() -> None:
    assert FxRequest.model_validate(VALID).source_money == parse_money("125.50", "EUR")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"source_amount": "0"}, "source_amount"),
        ({"source_amount": "-1.00"}, "source_amount"),
        ({"source_amount": "1.005"}, "source_amount"),
        ({"source_amount": 12.5}, "source_amount"),
        ({"source_amount": "1e2"}, "source_amount"),
        ({"source_currency": "XXQ"}, "source_currency"),
        ({"target_currency": "eur"}, "target_currency"),
        ({"target_currency": "EUR"}, "target_currency"),
        ({"source_account": "@fx-position:EUR"}, "source_account"),
        ({"destination_account": ""}, "destination_account"),
        ({"destination_account": "src"}, "destination_account"),
        ({"idempotency_key": "has space"}, "idempotency_key"),
        ({"reference": "x" * 141}, "reference"),
        ({"rate": "160"}, "rate"),
    ],
)
def test_bad_input_names_its_field(changes: dict[str, Any], field: str) -> None:
    assert refused_field(**changes) == field


def test_a_jpy_source_amount_has_no_decimals() -> None:
    changes = {"source_currency": "JPY", "target_currency": "EUR", "source_amount": "10.5"}

    assert refused_field(**changes) == "source_amount"
