"""A sweep request is refused field by field, before anything starts."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sagas import parse_money
from sagas.foundations import invalid_request_from
from sagas.sweep import SweepRequest

VALID: dict[str, Any] = {
    "idempotency_key": "eod-2026-11-22",
    "operating_account": "operating",
    "treasury_account": "treasury",
    "currency": "EUR",
    "threshold": "5000.00",
}


def refused_field(**changes: Any) -> str:
    """The field the client names when it refuses this request (nothing starts)."""
    with pytest.raises(ValidationError) as refused:
        SweepRequest.model_validate(VALID | changes)
    return invalid_request_from(refused.value).field


def test_the_threshold_is_money_in_minor_units_and_may_be_zero() -> None:
    assert SweepRequest.model_validate(VALID).threshold_money == parse_money("5000.00", "EUR")
    assert SweepRequest.model_validate(VALID | {"threshold": "0"}).threshold_money.minor == 0


def test_both_accounts_must_hold_the_request_s_currency() -> None:
    request = SweepRequest.model_validate(VALID)

    assert request.account_currencies() == {"operating_account": "EUR", "treasury_account": "EUR"}


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"threshold": "-1.00"}, "threshold"),
        ({"threshold": "1e3"}, "threshold"),
        ({"threshold": "12.345"}, "threshold"),
        ({"threshold": "NaN"}, "threshold"),
        ({"threshold": 30.5}, "threshold"),
        ({"threshold": ""}, "threshold"),
        ({"treasury_account": "operating"}, "treasury_account"),
        ({"operating_account": "@funding:EUR"}, "operating_account"),
        ({"treasury_account": ""}, "treasury_account"),
        ({"currency": "XXQ"}, "currency"),
        ({"reference": "x" * 141}, "reference"),
        ({"idempotency_key": "has space"}, "idempotency_key"),
        ({"surprise": "field"}, "surprise"),
    ],
)
def test_bad_input_names_its_field(changes: dict[str, Any], field: str) -> None:
    assert refused_field(**changes) == field


def test_missing_fields_are_named() -> None:
    without = {k: v for k, v in VALID.items() if k != "threshold"}
    with pytest.raises(ValidationError) as refused:
        SweepRequest.model_validate(without)
    assert invalid_request_from(refused.value).field == "threshold"


def test_a_deadline_beyond_thirty_days_is_refused_like_any_saga_s() -> None:
    assert refused_field(deadline_seconds=10**12) == "deadline_seconds"
    assert refused_field(deadline_seconds=0) == "deadline_seconds"
