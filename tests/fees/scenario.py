"""The fee collection as the testing kit runs it."""

from __future__ import annotations

from sagas import Money, SagaRequest, parse_money
from sagas.fees import FEE_COLLECTION, FEE_INCOME, TAX_PAYABLE, FeeRequest
from sagas.ledger import Ledger, system_account_id
from sagas.registry import built_in_registry
from sagas.testing import SagaScenario


def _fund(ledger: Ledger) -> None:
    ledger.open_account("customer", "EUR", opening_balance=parse_money("50.00", "EUR"))


def _request(key: str) -> SagaRequest:
    return FeeRequest(
        idempotency_key=key, customer_account="customer", currency="EUR", fee="2.50", tax="0.50"
    )


def _fee_accounts(request: SagaRequest) -> list[str]:
    assert isinstance(request, FeeRequest)
    return [
        system_account_id(FEE_INCOME, request.currency),
        system_account_id(TAX_PAYABLE, request.currency),
    ]


def _completed_effect(request: SagaRequest) -> dict[str, Money]:
    assert isinstance(request, FeeRequest)
    return {
        request.customer_account: -request.total,
        system_account_id(FEE_INCOME, request.currency): request.fee_money,
        system_account_id(TAX_PAYABLE, request.currency): request.tax_money,
    }


FEE_SCENARIO = SagaScenario(
    saga_type=built_in_registry().get(FEE_COLLECTION),
    fund=_fund,
    request=_request,
    completed_effect=_completed_effect,
    money_leaves_through=_fee_accounts,
)
