"""The demo `fundsaga dev --demo` runs: the saga catalog (`_demo_catalog`), readable in the
Web UI, one line per saga."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime

from sagas.client import FundsagaClient
from sagas.demo._catalog import DEMO_ACCOUNTS, DEMO_FAULTS, DEMO_PLANS, FROZEN_ACCOUNTS, DemoPlan
from sagas.demo._provider import DemoProvider
from sagas.engine import SagaOutcome
from sagas.foundations import parse_money
from sagas.ledger import AccountStatus, Ledger

__all__ = ["DEMO_FAULTS", "DemoRun", "prepare_accounts", "run_demo"]


@dataclass(frozen=True)
class DemoRun:
    plan: DemoPlan
    key: str
    outcome: SagaOutcome


def prepare_accounts(ledger: Ledger, stamp: str) -> None:
    """Open the demo's accounts, or top them up to their opening balance for this run."""
    for account_id, (code, opening) in DEMO_ACCOUNTS.items():
        target = parse_money(opening, code, allow_zero=True)
        found = ledger.find_account(account_id)
        if found is None:
            ledger.open_account(account_id, code, opening_balance=target if target.minor else None)
        elif found.balance.minor < target.minor:
            ledger.fund(f"demo-{stamp}-top-up-{account_id}", account_id, target - found.balance)
    for account_id in FROZEN_ACCOUNTS:
        if ledger.account(account_id).status is AccountStatus.ACTIVE:
            ledger.freeze(account_id)


async def run_demo(
    client: FundsagaClient, ui_url: str, provider: DemoProvider | None
) -> list[DemoRun]:
    """Start every plan of the catalog (the payouts only with a `provider`), wait for them all
    and print one line per saga."""
    if client.ledger is None:
        raise ValueError("the demo needs a client with a ledger")
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    prepare_accounts(client.ledger, stamp)
    plans = [p for p in DEMO_PLANS if provider is not None or p.provider_rule is None]
    keys = [f"demo-{stamp}-{plan.name}" for plan in plans]
    for plan, key in zip(plans, keys, strict=True):
        await _start(client, plan, key, provider)
    outcomes = await asyncio.gather(
        *(client.saga(p.saga_type, k).outcome() for p, k in zip(plans, keys, strict=True))
    )
    runs = [DemoRun(*found) for found in zip(plans, keys, outcomes, strict=True)]
    for run in runs:
        link = f"{ui_url}/namespaces/default/workflows/{run.outcome.saga_id}"
        status = run.outcome.status.value
        print(f"  {status:<12} {run.plan.saga_type:<16} {run.plan.shows:<50} {link}")
    return runs


async def _start(
    client: FundsagaClient, plan: DemoPlan, key: str, provider: DemoProvider | None
) -> None:
    request = {**plan.request, "idempotency_key": key}
    if plan.provider_rule is not None and provider is not None:
        if "items" in request:
            request["items"] = [{**item, "beneficiary": key} for item in request["items"]]
        else:
            request["beneficiary"] = key
        await provider.arrange(key, plan.provider_rule)
    await client.start(plan.saga_type, request)
