"""The test payout as the testing kit runs it."""

from __future__ import annotations

from sagas import Money, SagaRequest, parse_money
from sagas.ledger import Ledger, funding_account_id
from sagas.testing import SagaScenario
from tests.pivot import PAYOUT
from tests.pivot.saga import PayoutRequest


def _fund(ledger: Ledger) -> None:
    ledger.open_account("acc", "EUR", opening_balance=parse_money("100.00", "EUR"))


def _request(key: str) -> SagaRequest:
    return PayoutRequest(idempotency_key=key, account="acc", amount="40.00")


def _outside(request: SagaRequest) -> list[str]:
    return [funding_account_id("EUR")]


def _completed_effect(request: SagaRequest) -> dict[str, Money]:
    assert isinstance(request, PayoutRequest)
    return {"acc": -request.money, funding_account_id("EUR"): request.money}


PAYOUT_SCENARIO = SagaScenario(
    saga_type=PAYOUT,
    fund=_fund,
    request=_request,
    completed_effect=_completed_effect,
    money_leaves_through=_outside,
)
