"""Payouts settled by the simulator, its camt.053 of the day imported: every payout it stated
as sent matches, and each break the provider injects is found with its kind."""

from __future__ import annotations

import asyncio
import urllib.request
from datetime import timedelta
from typing import Any

from sagas import SagaStatus, parse_money
from sagas.reconcile import (
    BreakKind,
    CsvMapping,
    LineDirection,
    ReconcilePolicy,
    Reconciliation,
    read_statement,
)
from tests.payouts.conftest import Rig
from tests.payouts.scenario import PAYOUT_TYPE
from tests.provider.http import call

SETTLES = {"behaviour": "settle-callback", "callbacks": 1, "settle_after_seconds": 0}
INJECTED: dict[str, dict[str, Any]] = {
    "fee": {"fee": "0.30"},
    "changed": {"statement_amount": "39.00"},
    "duplicated": {"duplicate_on_statement": True},
    "omitted": {"omit_from_statement": True},
    "returned": {"returned": "AC04"},
}


def statement(rig: Rig, fmt: str) -> bytes:
    with urllib.request.urlopen(f"{rig.provider}/statements?format={fmt}&currency=EUR") as got:
        data: bytes = got.read()
    return data


async def test_the_days_statement_matches_and_every_injected_break_is_found(rig: Rig) -> None:
    rig.ledger.fund("top-up", "customer", parse_money("1000.00", "EUR"))
    sagas = {}
    for name, rule in {"clean": {}, **INJECTED}.items():
        sagas[name] = await rig.start(rig.behave(**SETTLES, **rule))
    for saga in sagas.values():
        assert (await saga.outcome()).status is SagaStatus.COMPLETED
    stray = call(
        f"{rig.provider}/statement-lines",
        "POST",
        {"key": "NOT-OURS-1", "amount": "12.34", "currency": "EUR"},
    )
    assert stray.status == 201
    # A statement is complete to the second it is made: the last settlement must be before it.
    await asyncio.sleep(1.1)
    books = Reconciliation(rig.ledger, [PAYOUT_TYPE.definition], ReconcilePolicy(grace=timedelta()))
    camt = statement(rig, "camt053")

    imported = books.import_statement(
        read_statement(camt), camt, name="camt053.xml", imported_by="test", action_id="first"
    )

    by_saga = {m.movement.saga_id: m for m in books.movements()}
    name_of = {
        m.movement.reference: name for name, saga in sagas.items() for m in [by_saga[saga.saga_id]]
    }
    found = {(name_of.get(b.reference or "", b.reference), b.kind) for b in books.breaks()}
    assert found == {
        ("fee", BreakKind.FEE_DIFFERENCE),
        ("changed", BreakKind.AMOUNT_MISMATCH),
        ("duplicated", BreakKind.DUPLICATE),
        ("omitted", BreakKind.MISSING_IN_STATEMENT),
        ("returned", BreakKind.MISSING_IN_LEDGER),
        ("NOT-OURS-1", BreakKind.MISSING_IN_LEDGER),
    }
    assert by_saga[sagas["clean"].saga_id].status.startswith("matched to statement line")
    (returned,) = [b for b in books.breaks() if name_of.get(b.reference or "") == "returned"]
    assert returned.statement_amount == parse_money("40.00", "EUR")
    assert imported.lines == 8  # six payouts stated (one twice, one not), a return, the stray
    lines = read_statement(camt).lines
    assert [x.direction for x in lines].count(LineDirection.CREDIT) == 1

    csv = statement(rig, "csv")
    read = read_statement(csv, csv_mapping=CsvMapping.simulator())
    again = books.import_statement(read, csv, name="day.csv", imported_by="test", action_id="again")
    assert (again.new, again.added_lines, again.run.opened) == (True, 0, [])
