"""The FX transfer as the testing kit runs it: EUR from `src` to JPY on `dst`."""

from __future__ import annotations

from sagas import Money, SagaRequest, parse_money
from sagas.fx import DEMO_RATES, FX_POSITION, FX_TRANSFER, FxRequest, convert_amount
from sagas.ledger import Ledger, system_account_id
from sagas.registry import built_in_registry
from sagas.testing import SagaScenario


def fund(ledger: Ledger) -> None:
    ledger.open_account("src", "EUR", opening_balance=parse_money("500.00", "EUR"))
    ledger.open_account("dst", "JPY", opening_balance=parse_money("1000", "JPY"))


def fx_request(key: str, amount: str = "125.50") -> FxRequest:
    return FxRequest(
        idempotency_key=key,
        source_account="src",
        destination_account="dst",
        source_currency="EUR",
        target_currency="JPY",
        source_amount=amount,
    )


def _request(key: str) -> SagaRequest:
    return fx_request(key)


def positions(request: SagaRequest) -> list[str]:
    assert isinstance(request, FxRequest)
    return [
        system_account_id(FX_POSITION, request.source_currency),
        system_account_id(FX_POSITION, request.target_currency),
    ]


def completed_effect(request: SagaRequest) -> dict[str, Money]:
    assert isinstance(request, FxRequest)
    rate = DEMO_RATES[(request.source_currency, request.target_currency)]
    target = convert_amount(request.source_money, rate, request.target_currency).target
    source_position, target_position = positions(request)
    return {
        request.source_account: -request.source_money,
        source_position: request.source_money,
        target_position: -target,
        request.destination_account: target,
    }


FX_SCENARIO = SagaScenario(
    saga_type=built_in_registry().get(FX_TRANSFER),
    fund=fund,
    request=_request,
    completed_effect=completed_effect,
    money_leaves_through=positions,
)
