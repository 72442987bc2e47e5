"""A file of several statements through the CLI and the worker: each statement reported on its
own line and in the `statement_imported` record, `ledger verify` content with the rows; a file
whose second statement has a bad field refused naming statement 2, with nothing of the first
written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sagas.audit import AuditStore
from sagas.ledger import Ledger
from tests.e2e.test_statement_actions import (
    RULES,
    Worker,
    cli,
    count,
    statement_records,
    verify,
    worker,
)
from tests.reconcile.test_several_statements import ING_DAYS, mt940_lines

__all__ = ["worker"]  # the fixture, used by name


async def test_each_statement_of_a_file_is_reported_and_recorded(
    worker: Worker,
    ledger: Ledger,
    audit_store: AuditStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    file = tmp_path / "ing-week.sta"
    file.write_bytes(ING_DAYS)
    async with worker(RULES):
        code, table = await cli(capsys, "reconcile", "import", str(file))
        again, _ = await cli(capsys, "reconcile", "import", str(file), "-o", "json")
        proved, proof = await cli(capsys, "reconcile", "proof", "-o", "json")
        verified, findings = await verify(capsys)

    counted = mt940_lines(ING_DAYS)
    imported, repeated = statement_records(audit_store)
    listed: Any = imported.payload["statements"]
    listed_again: Any = repeated.payload["statements"]
    assert [(s["position"], s["read"], s["new"]) for s in listed] == [
        (n, lines, lines) for n, lines in enumerate(counted, 1)
    ]
    assert imported.payload["accounted"] == {
        "read": sum(counted),
        "new": sum(counted),
        "known": 0,
        "refused": 0,
    }
    assert [s["known"] for s in listed_again] == counted
    assert "statement 2 of 3, P261103000000001/00000 (account NL20INGB0001234567EUR, EUR)" in table
    assert "3 line(s) read = 3 new + 0 already known + 0 refused" in table
    assert f"the file's 3 statements: {sum(counted)} line(s) read" in table
    assert code == 1  # the payouts are no rail movement of the ledger's: breaks are open
    assert again == 1
    # Each balances, the lines no movement explains its items: none is reconciled.
    assert [
        (p["position"], p["balances"], p["reconciled"], len(p["unmatched_lines"]))
        for p in json.loads(proof)["proofs"]
    ] == [(n, True, False, lines) for n, lines in enumerate(counted, 1)]
    assert proved == 0
    assert count(ledger, "bank_statement") == 3
    assert (verified, findings) == (0, [])


async def test_a_file_whose_second_statement_is_bad_is_refused_with_nothing_written(
    worker: Worker,
    ledger: Ledger,
    audit_store: AuditStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    file = tmp_path / "bad.sta"
    file.write_bytes(ING_DAYS.replace(b"D75,50NTRFEREF//ING-0301", b"D75,505NTRFEREF//ING-0301"))
    async with worker(RULES):
        code, out = await cli(capsys, "reconcile", "import", str(file))

    assert code == 2
    assert ":61:[1] amount of statement 2" in out
    tables = ("statement_file", "bank_statement", "statement_line", "reconciliation_break")
    assert [count(ledger, t) for t in tables] == [0, 0, 0, 0]
    assert statement_records(audit_store) == []
