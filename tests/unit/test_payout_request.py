from __future__ import annotations

from typing import Any

import pytest

from sagas import InvalidRequestError
from sagas.payouts import EXTERNAL_PAYOUT, MAX_SETTLE_WAIT_SECONDS, SETTLE_WAIT
from sagas.registry import load_registry

GOOD: dict[str, Any] = {
    "idempotency_key": "po-1",
    "account": "acc-a",
    "beneficiary": "DE89370400440532013000",
    "currency": "EUR",
    "amount": "40.00",
}


def refused_field(**changes: Any) -> str:
    with pytest.raises(InvalidRequestError) as caught:
        load_registry().parse_request(EXTERNAL_PAYOUT, {**GOOD, **changes})
    return caught.value.field


def test_the_settlement_callback_is_awaited_an_hour_unless_the_request_says() -> None:
    parsed = load_registry().parse_request(EXTERNAL_PAYOUT, GOOD)
    assert parsed.model_dump()["settle_wait_seconds"] == SETTLE_WAIT.total_seconds() == 3600
    shorter = load_registry().parse_request(EXTERNAL_PAYOUT, {**GOOD, "settle_wait_seconds": 30})
    assert shorter.model_dump()["settle_wait_seconds"] == 30


@pytest.mark.parametrize("wait", [0, -1, MAX_SETTLE_WAIT_SECONDS + 1, "60", 1.5, None])
def test_a_bad_settle_wait_is_refused_naming_it(wait: object) -> None:
    assert refused_field(settle_wait_seconds=wait) == "settle_wait_seconds"


@pytest.mark.parametrize("beneficiary", ["", "x" * 65])
def test_a_bad_beneficiary_is_refused_naming_it(beneficiary: str) -> None:
    assert refused_field(beneficiary=beneficiary) == "beneficiary"
