"""Per saga type: the accounts to fund and a request that completes when nothing fails.

The only per-type input the fault matrix needs; its cases come from the saga definition.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from sagas import Money, SagaRequest, parse_money
from sagas.ledger import Ledger
from sagas.transfer import TransferRequest


@dataclass(frozen=True, kw_only=True)
class Scenario:
    fund: Callable[[Ledger], None]
    """Open and fund the accounts the request uses."""
    request: Callable[[str], SagaRequest]
    """A request with this idempotency key that completes on a healthy worker."""
    completed_effect: Callable[[SagaRequest], dict[str, Money]]
    """The saga's net effect per account once it has COMPLETED."""


def _fund_transfer(ledger: Ledger) -> None:
    ledger.open_account("src", "EUR", opening_balance=parse_money("500.00", "EUR"))
    ledger.open_account("dst", "EUR", opening_balance=parse_money("20.00", "EUR"))


def _transfer_request(key: str) -> SagaRequest:
    return TransferRequest.parse(
        {
            "idempotency_key": key,
            "source_account": "src",
            "destination_account": "dst",
            "amount": "125.50",
            "currency": "EUR",
        }
    )


def _transfer_effect(request: SagaRequest) -> dict[str, Money]:
    assert isinstance(request, TransferRequest)
    return {request.source_account: -request.money, request.destination_account: request.money}


SCENARIOS: dict[str, Scenario] = {
    "transfer": Scenario(
        fund=_fund_transfer, request=_transfer_request, completed_effect=_transfer_effect
    ),
}
