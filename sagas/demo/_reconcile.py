"""After the catalog, the provider's statement of the day is imported and matched, as a
payments team does each morning: every payout the provider settled is a movement the ledger
booked, and the other way round."""

from __future__ import annotations

import asyncio
import urllib.request
from dataclasses import replace
from datetime import timedelta
from urllib.parse import urlencode

from pydantic import JsonValue

from sagas.client import FundsagaClient
from sagas.demo._catalog import DEMO_ACCOUNTS
from sagas.demo._provider import DemoProvider
from sagas.foundations import Settings
from sagas.reconcile import Reconciliation, StatementRules

STATEMENT_TIMEOUT_SECONDS = 10.0


def demo_statement_rules(settings: Settings) -> StatementRules:
    """The demo worker's rules: the deployment's, but the demo's sagas are over, so a payout
    the statement lacks is a break now, not after the grace period."""
    rules = StatementRules.of(settings)
    return replace(rules, policy=replace(rules.policy, grace=timedelta()))


async def reconcile_demo(
    client: FundsagaClient, provider: DemoProvider
) -> list[dict[str, JsonValue]]:
    """Have the worker import the provider's camt.053 of today in each demo currency (under
    `demo_statement_rules`); what each import did, with its statement's proof of cash once
    all are imported (`proof_of_cash`: closing, ledger balance, difference, whether it
    balances)."""
    if client.ledger is None:
        raise ValueError("the demo reconciles a client with a ledger")
    # A statement is complete up to the second it is made: the last settlement is before it.
    await asyncio.sleep(1.1)
    books = Reconciliation(client.ledger, client.registry.definitions().values())
    actions = client.reconcile_actions(books)
    imported = []
    for code in sorted({code for code, _ in DEMO_ACCOUNTS.values()}):
        data = await asyncio.to_thread(_statement, provider.url, code)
        name = f"camt053-{code}.xml"
        imported.append(await actions.import_statement(data, name=name, note="demo: the day"))
    proofs = {proof.file_id: proof for proof in await asyncio.to_thread(books.proofs_of_cash)}
    for facts in imported:
        proof = proofs.get(facts["file_id"]) if isinstance(facts["file_id"], int) else None
        if proof is not None:
            facts["proof_of_cash"] = {
                "closing": str(proof.closing),
                "ledger_balance": str(proof.ledger_balance),
                "difference": str(proof.difference),
                "balances": proof.balances,
                "reconciled": proof.reconciled,
            }
    return imported


def _statement(url: str, code: str) -> bytes:
    query = urlencode({"format": "camt053", "currency": code})
    with urllib.request.urlopen(
        f"{url}/statements?{query}", timeout=STATEMENT_TIMEOUT_SECONDS
    ) as got:
        data: bytes = got.read()
    return data
