"""The demo `fundsaga dev --demo` runs: one transfer per outcome, readable in the Web UI."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from sagas.app._client import FundsagaClient
from sagas.engine import SagaOutcome
from sagas.foundations import parse_money
from sagas.ledger import AccountStatus, Ledger
from sagas.transfer import TransferRequest

DEMO_FAULTS = "settle=transient@demo-erin"
"""Every settle of a transfer touching demo-erin fails transiently until its retries run out."""

_ACCOUNTS = {"demo-alice": "1000.00", "demo-bob": "0", "demo-carol": "0", "demo-erin": "0"}


def prepare_accounts(ledger: Ledger) -> None:
    for account_id, opening in _ACCOUNTS.items():
        if ledger.find_account(account_id) is None:
            money = parse_money(opening, "EUR", allow_zero=True)
            ledger.open_account(account_id, "EUR", opening_balance=money if money.minor else None)
    if ledger.account("demo-carol").status is AccountStatus.ACTIVE:
        ledger.freeze("demo-carol")


async def run_demo(client: FundsagaClient, ui_url: str) -> list[SagaOutcome]:
    if client.ledger is None:
        raise ValueError("the demo needs a client with a ledger")
    prepare_accounts(client.ledger)
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    plans = [
        ("completed", "demo-bob", "100.00", "a transfer that completes"),
        ("business-error", "demo-carol", "25.00", "to a frozen account: compensated"),
        ("retries-exhausted", "demo-erin", "10.00", "settle fails until retries run out"),
    ]
    requests = [
        TransferRequest(
            idempotency_key=f"demo-{stamp}-{name}",
            source_account="demo-alice",
            destination_account=destination,
            amount=amount,
            currency="EUR",
            reference=why,
        )
        for name, destination, amount, why in plans
    ]
    for request in requests:
        await client.start_transfer(request)
    outcomes = await asyncio.gather(*(client.outcome(r.idempotency_key) for r in requests))
    for outcome in outcomes:
        link = f"{ui_url}/namespaces/default/workflows/{outcome.saga_id}"
        print(f"  {outcome.status.value:<12} {link}")
    return list(outcomes)
