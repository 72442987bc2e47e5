"""The demo `fundsaga dev --demo` runs: the saga catalog (`_demo_catalog`), readable in the
Web UI, one line per saga."""

from __future__ import annotations

import asyncio
import copy
from dataclasses import dataclass
from datetime import UTC, datetime

from sagas.client import DevOperator, FundsagaClient, OperatorActions
from sagas.demo._catalog import DEMO_ACCOUNTS, DEMO_FAULTS, DEMO_PLANS, FROZEN_ACCOUNTS, DemoPlan
from sagas.demo._provider import DemoProvider
from sagas.engine import AuditKind, SagaOutcome
from sagas.foundations import parse_money
from sagas.ledger import AccountStatus, Ledger

__all__ = ["DEMO_FAULTS", "DemoRun", "prepare_accounts", "run_demo"]


@dataclass(frozen=True)
class DemoRun:
    plan: DemoPlan
    key: str
    outcome: SagaOutcome


async def prepare_accounts(client: FundsagaClient, stamp: str) -> None:
    """Open the demo's accounts and bring each to its opening balance for this run, funded as
    operations fund: the client's operator proposes, a second operator of the development
    identity provider approves."""
    ledger = _ledger_of(client)
    actions = client.operator_actions()
    checker = OperatorActions(client.temporal, client.task_queue, _checker(client))
    for account_id, (code, opening) in DEMO_ACCOUNTS.items():
        target = parse_money(opening, code, allow_zero=True)
        found = ledger.find_account(account_id) or ledger.open_account(account_id, code)
        if found.balance.minor < target.minor:
            proposal = await actions.propose_funding(
                account_id, target - found.balance, f"demo {stamp}: opening balance"
            )
            await checker.approve_funding(proposal, "demo: checked")
    for account_id in FROZEN_ACCOUNTS:
        if ledger.account(account_id).status is AccountStatus.ACTIVE:
            await actions.set_account_status(AuditKind.ACCOUNT_FROZEN, account_id, "demo")


def _checker(client: FundsagaClient) -> DevOperator:
    """The second operator: the demo runs on the development identity provider only."""
    maker = client.operator
    if not isinstance(maker, DevOperator):
        raise ValueError(
            "the demo funds its accounts through two operators of the development identity "
            "provider (`fundsaga dev` makes it)"
        )
    return maker.provider.operator(f"{maker.name}-checker")


def _ledger_of(client: FundsagaClient) -> Ledger:
    if client.ledger is None:
        raise ValueError("the demo needs a client with a ledger")
    return client.ledger


async def run_demo(
    client: FundsagaClient, ui_url: str, provider: DemoProvider | None
) -> list[DemoRun]:
    """Start every plan of the catalog (the payouts only with a `provider`), wait for them all
    and print one line per saga."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    await prepare_accounts(client, stamp)
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
    await _starter(client, plan).start(plan.saga_type, request)


def _starter(client: FundsagaClient, plan: DemoPlan) -> FundsagaClient:
    """The client that starts `plan`: without its ledger (so its account checks) for a plan
    that goes past them."""
    if not plan.past_the_checks:
        return client
    bypassing = copy.copy(client)
    bypassing.ledger = None
    return bypassing
