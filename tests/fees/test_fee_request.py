"""A fee request is refused field by field, before anything starts."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sagas import parse_money
from sagas.fees import FeeRequest
from sagas.foundations import invalid_request_from

VALID: dict[str, Any] = {
    "idempotency_key": "fee-1",
    "customer_account": "customer",
    "currency": "EUR",
    "fee": "2.50",
    "tax": "0.50",
}


def refused_field(**changes: Any) -> str:
    """The field the client names when it refuses this request (nothing starts)."""
    with pytest.raises(ValidationError) as refused:
        FeeRequest.model_validate(VALID | changes)
    return invalid_request_from(refused.value).field


def test_the_customer_pays_fee_plus_tax() -> None:
    request = FeeRequest.model_validate(VALID)

    assert request.total == parse_money("3.00", "EUR")
    assert FeeRequest.model_validate(VALID | {"tax": "0"}).total == parse_money("2.50", "EUR")


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"fee": "0"}, "fee"),
        ({"fee": "-1.00"}, "fee"),
        ({"fee": "2.505"}, "fee"),
        ({"fee": 2.5}, "fee"),
        ({"tax": "-0.10"}, "tax"),
        ({"tax": "1e2"}, "tax"),
        ({"currency": "XXQ"}, "currency"),
        ({"customer_account": "@fee-income:EUR"}, "customer_account"),
        ({"customer_account": ""}, "customer_account"),
        ({"idempotency_key": "has space"}, "idempotency_key"),
        ({"reference": "x" * 141}, "reference"),
        ({"surprise": "field"}, "surprise"),
    ],
)
def test_bad_input_names_its_field(changes: dict[str, Any], field: str) -> None:
    assert refused_field(**changes) == field


def test_a_deadline_beyond_thirty_days_is_refused_like_any_saga_s() -> None:
    assert refused_field(deadline_seconds=10**12) == "deadline_seconds"
    assert refused_field(deadline_seconds=0) == "deadline_seconds"
