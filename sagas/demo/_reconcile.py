"""After the catalog, the provider's statement of the day is imported and matched, as a
payments team does each morning: every payout the provider settled is a movement the ledger
booked, and the other way round."""

from __future__ import annotations

import asyncio
import urllib.request
from datetime import timedelta
from urllib.parse import urlencode

from pydantic import JsonValue

from sagas.client import FundsagaClient
from sagas.demo._catalog import DEMO_ACCOUNTS
from sagas.demo._provider import DemoProvider
from sagas.reconcile import ReconcilePolicy, Reconciliation

STATEMENT_TIMEOUT_SECONDS = 10.0
AT_ONCE = ReconcilePolicy(grace=timedelta())
"""The demo's sagas are over: a payout the statement lacks is a break now."""


async def reconcile_demo(
    client: FundsagaClient, provider: DemoProvider
) -> list[dict[str, JsonValue]]:
    """Import the provider's camt.053 of today in each demo currency; what each import did."""
    if client.ledger is None:
        raise ValueError("the demo reconciles a client with a ledger")
    # A statement is complete up to the second it is made: the last settlement is before it.
    await asyncio.sleep(1.1)
    definitions = client.registry.definitions().values()
    books = Reconciliation(client.ledger, definitions, AT_ONCE)
    actions = client.reconcile_actions(books)
    imported = []
    for code in sorted({code for code, _ in DEMO_ACCOUNTS.values()}):
        data = await asyncio.to_thread(_statement, provider.url, code)
        name = f"camt053-{code}.xml"
        imported.append(await actions.import_statement(data, name=name, note="demo: the day"))
    return imported


def _statement(url: str, code: str) -> bytes:
    query = urlencode({"format": "camt053", "currency": code})
    with urllib.request.urlopen(
        f"{url}/statements?{query}", timeout=STATEMENT_TIMEOUT_SECONDS
    ) as got:
        data: bytes = got.read()
    return data
