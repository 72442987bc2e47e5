"""The escrow as the testing kit runs it: written as a user writes one for their own saga."""

from __future__ import annotations

from sagas import Money, SagaRequest, parse_money
from sagas.ledger import Ledger
from sagas.testing import SagaScenario
from tests.escrow import ESCROW
from tests.escrow.saga import EscrowRequest


def _fund(ledger: Ledger) -> None:
    ledger.open_account("buyer", "EUR", opening_balance=parse_money("300.00", "EUR"))
    ledger.open_account("seller", "EUR")


def _request(key: str) -> SagaRequest:
    return EscrowRequest(
        idempotency_key=key, payer="buyer", payee="seller", currency="EUR", amount="80.00"
    )


def _completed_effect(request: SagaRequest) -> dict[str, Money]:
    assert isinstance(request, EscrowRequest)
    return {request.payer: -request.money, request.payee: request.money}


ESCROW_SCENARIO = SagaScenario(
    saga_type=ESCROW, fund=_fund, request=_request, completed_effect=_completed_effect
)
