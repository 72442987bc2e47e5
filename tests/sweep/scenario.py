"""The end-of-day sweep as the testing kit runs it: 100.00 operating, 30.00 kept, 70.00 swept."""

from __future__ import annotations

from typing import Any

from sagas import Money, SagaRequest, parse_money
from sagas.ledger import Ledger
from sagas.registry import built_in_registry
from sagas.sweep import EOD_SWEEP, SweepRequest
from sagas.testing import SagaScenario

OPERATING, TREASURY = "operating", "treasury"
OPENING, THRESHOLD = "100.00", "30.00"


def fund(ledger: Ledger) -> None:
    ledger.open_account(OPERATING, "EUR", opening_balance=parse_money(OPENING, "EUR"))
    ledger.open_account(TREASURY, "EUR")


def sweep_request(key: str, **changes: Any) -> SweepRequest:
    fields = {
        "idempotency_key": key,
        "operating_account": OPERATING,
        "treasury_account": TREASURY,
        "currency": "EUR",
        "threshold": THRESHOLD,
    }
    return SweepRequest.model_validate(fields | changes)


def _request(key: str) -> SagaRequest:
    return sweep_request(key)


def _completed_effect(request: SagaRequest) -> dict[str, Money]:
    assert isinstance(request, SweepRequest)
    swept = parse_money(OPENING, request.currency) - request.threshold_money
    return {request.operating_account: -swept, request.treasury_account: swept}


SWEEP_SCENARIO = SagaScenario(
    saga_type=built_in_registry().get(EOD_SWEEP),
    fund=fund,
    request=_request,
    completed_effect=_completed_effect,
)
