"""The transfer as the testing kit runs it: its fault matrix and its recorded histories."""

from __future__ import annotations

from sagas import Money, SagaRequest, parse_money
from sagas.ledger import Ledger
from sagas.registry import built_in_registry
from sagas.testing import SagaScenario
from sagas.transfer import TransferRequest


def _fund(ledger: Ledger) -> None:
    ledger.open_account("src", "EUR", opening_balance=parse_money("500.00", "EUR"))
    ledger.open_account("dst", "EUR", opening_balance=parse_money("20.00", "EUR"))


def _request(key: str) -> SagaRequest:
    return TransferRequest.parse(
        {
            "idempotency_key": key,
            "source_account": "src",
            "destination_account": "dst",
            "amount": "125.50",
            "currency": "EUR",
        }
    )


def _completed_effect(request: SagaRequest) -> dict[str, Money]:
    assert isinstance(request, TransferRequest)
    return {request.source_account: -request.money, request.destination_account: request.money}


TRANSFER_SCENARIO = SagaScenario(
    saga_type=built_in_registry().get("transfer"),
    fund=_fund,
    request=_request,
    completed_effect=_completed_effect,
)
