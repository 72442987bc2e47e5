"""The external payout as the testing kit runs it (the provider simulator must be running, its
URL in FUNDSAGA_PROVIDER_URL, when a worker is built)."""

from __future__ import annotations

from sagas import Money, SagaRequest, parse_money
from sagas.ledger import Ledger, funding_account_id
from sagas.payouts import EXTERNAL_PAYOUT, PAYOUT_BATCH, PayoutRequest
from sagas.registry import built_in_registry
from sagas.testing import SagaScenario

PAYOUT_TYPE = built_in_registry().get(EXTERNAL_PAYOUT)
BATCH_TYPE = built_in_registry().get(PAYOUT_BATCH)


def fund(ledger: Ledger) -> None:
    ledger.open_account("customer", "EUR", opening_balance=parse_money("100.00", "EUR"))


def payout_request(key: str, beneficiary: str = "ben-matrix") -> PayoutRequest:
    return PayoutRequest(
        idempotency_key=key,
        account="customer",
        beneficiary=beneficiary,
        currency="EUR",
        amount="40.00",
    )


def _outside(request: SagaRequest) -> list[str]:
    assert isinstance(request, PayoutRequest)
    return [funding_account_id(request.currency)]


def _completed_effect(request: SagaRequest) -> dict[str, Money]:
    assert isinstance(request, PayoutRequest)
    return {request.account: -request.money, funding_account_id(request.currency): request.money}


PAYOUT_SCENARIO = SagaScenario(
    saga_type=PAYOUT_TYPE,
    fund=fund,
    request=payout_request,
    completed_effect=_completed_effect,
    money_leaves_through=_outside,
)
