"""`fundsaga reconcile import FILE --dry-run` and `reconcile run --dry-run` through the worker:
under the worker's matching rules (never the operator's FUNDSAGA_RECONCILE_RULES), they show
what the import would keep, match and open, and write nothing, in no reconciliation table and
not in the audit store; the real import then does what the dry run proposed, and its record
states the rules with their SHA-256."""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from sagas.audit import AuditStore
from sagas.ledger import Ledger
from sagas.payouts import PAYOUT_CLEARING, PAYOUT_ENTRY
from sagas.reconcile import ReconcilePolicy, StatementRules, metadata, parse_rules
from tests.e2e.test_statement_actions import Worker, cli, rows, statement_records, verify, worker
from tests.ledger._money import eur
from tests.reconcile.camt_documents import entry, statement
from tests.reconcile.test_matching import sent, settle

__all__ = ["worker"]  # the fixture, used by name

IBAN = "DE89370400440532013000"
POLICY = ReconcilePolicy(grace=timedelta())
WORKER_RULES = """
[[rules]]
name = "bank-de89"
priority = 10
accounts = ["DE89370400440532013000"]
amount_tolerance = "1%"
"""
RULES = StatementRules(policy=POLICY, matching=parse_rules(WORKER_RULES, POLICY))


def counts(ledger: Ledger, audit_store: AuditStore) -> dict[str, int]:
    """Rows of every reconciliation table, and the audit store's records."""
    with ledger.engine.connect() as connection:
        found = {
            name: connection.scalar(select(func.count()).select_from(table)) or 0
            for name, table in metadata.tables.items()
        }
    return {**found, "audit records": len(list(audit_store.records()))}


def camt_of(day: date) -> bytes:
    """The day's statement: payout a (100.00 booked as 99.50), payout b (7.00) without our
    reference, and a payout the ledger never made."""
    dated = f"<Dt>{day.isoformat()}</Dt>"

    def booked(amount: str, bank: str, end_to_end_id: str) -> str:
        references = f"<AcctSvcrRef>{bank}</AcctSvcrRef>"
        found = entry(
            amount=amount, booked=dated, references=references, end_to_end_id=end_to_end_id
        )
        return found.replace("<ValDt><Dt>2026-11-04</Dt>", f"<ValDt>{dated}")

    entries = (
        booked("99.50", "D-1", sent("a"))
        + booked("7.00", "D-2", "")
        + booked("42.00", "D-3", sent("x"))
    )
    period = (
        f"<FrToDt><FrDtTm>{day.isoformat()}T00:00:00+00:00</FrDtTm>"
        f"<ToDtTm>{day.isoformat()}T23:59:59+00:00</ToDtTm></FrToDt>"
    )
    return statement(entries, period=period)


async def test_a_dry_run_writes_nothing_and_proposes_what_the_import_then_does(
    worker: Worker,
    ledger: Ledger,
    audit_store: AuditStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ledger.declare(system_accounts=[PAYOUT_CLEARING], entry_kinds=[PAYOUT_ENTRY])
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000_000))
    entries = {key: settle(ledger, key, minor) for key, minor in (("a", 10_000), ("b", 700))}
    file = tmp_path / "day.xml"
    file.write_bytes(camt_of(datetime.now(UTC).date()))
    # The importing operator's own rules, which would match nothing by amount: ignored.
    operators = tmp_path / "mine.toml"
    operators.write_text('[[rules]]\nname = "mine"\npriority = 99\nrequire = ["end_to_end_id"]\n')
    monkeypatch.setenv("FUNDSAGA_RECONCILE_RULES", str(operators))

    async with worker(RULES):
        before = counts(ledger, audit_store)
        dry_code, dry_out = await cli(
            capsys, "reconcile", "import", str(file), "--dry-run", "-o", "json"
        )
        table_code, table = await cli(capsys, "reconcile", "import", str(file), "--dry-run")
        after = counts(ledger, audit_store)
        code, out = await cli(capsys, "reconcile", "import", str(file), "-o", "json")
        entries["x"] = settle(ledger, "x", 4_200)  # the payout that was missing, booked late
        before_run = counts(ledger, audit_store)
        run_code, run_out = await cli(capsys, "reconcile", "run", "--dry-run", "-o", "json")
        after_run = counts(ledger, audit_store)
        ran_code, ran_out = await cli(capsys, "reconcile", "run", "-o", "json")
        verified, findings = await verify(capsys)

    assert after == before
    assert before["statement_line"] == 0
    would: dict[str, Any] = json.loads(dry_out)
    assert (would["dry_run"], would["new"], would["file_id"]) == (True, True, None)
    (accounted,) = would["statements"]
    assert (accounted["read"], accounted["new"], accounted["known"]) == (3, 3, 0)
    proposed = [
        (m["line"]["position"], m["line"]["bank_reference"], m["entry_id"], m["method"], m["rule"])
        for m in would["matches"]
    ]
    assert proposed == [
        (1, "D-1", entries["a"], "reference", "bank-de89"),
        (2, "D-2", entries["b"], "amount_date", "bank-de89"),
    ]
    ((kind, reference, detail),) = [
        (b["kind"], b["reference"], b["detail"]) for b in would["breaks"]
    ]
    assert (kind, reference) == ("missing_in_ledger", sent("x"))
    assert detail.endswith("(rule bank-de89)")
    assert (would["open_after"], dry_code, table_code) == (1, 1, 1)  # a break would be open
    assert "DRY RUN, nothing written: day.xml" in table
    assert f"→ entry {entries['b']} by amount_date, rule bank-de89" in table
    assert "open: missing_in_ledger" in table

    done = json.loads(out)
    assert (code, done["matched"], done["opened"]) == (1, would["matched"], would["opened"])
    imported, _ = statement_records(audit_store)
    lines = {r["line_id"]: r["position"] + 1 for r in rows(ledger, "statement_line")}
    kept = sorted(
        (lines[r["line_id"]], r["entry_id"], r["method"])
        for r in rows(ledger, "rail_match")
        if r["action_id"] == imported.saga_id
    )
    assert kept == [(p, e, m) for p, _, e, m, _ in proposed]
    opened = [(b["kind"], b["detail"]) for b in rows(ledger, "reconciliation_break")]
    assert opened == [(b["kind"], b["detail"]) for b in would["breaks"]]
    assert [b["status"] for b in rows(ledger, "reconciliation_break")] == ["matched"]
    assert imported.payload["rules"] == RULES.matching_rules.facts()["rules"]
    canonical = json.dumps(imported.payload["rules"], sort_keys=True, separators=(",", ":"))
    assert imported.payload["rules_sha256"] == hashlib.sha256(canonical.encode()).hexdigest()
    assert imported.payload["rules_sha256"] == would["rules_sha256"]

    assert after_run == before_run
    would_run, ran = json.loads(run_out), json.loads(ran_out)
    ((match,),) = [would_run["matches"]]
    assert (match["line"]["bank_reference"], match["entry_id"]) == ("D-3", entries["x"])
    assert match["line"]["line_id"] is not None  # a line kept before: named by its id
    (missing_break,) = [b["break_id"] for b in rows(ledger, "reconciliation_break")]
    assert would_run["closes"] == [{"break_id": missing_break, "kind": "missing_in_ledger"}]
    assert (would_run["open_after"], run_code) == (0, 0)
    assert (ran["matched"], ran["closed"], ran_code) == (1, 1, 0)
    # The test's payouts were posted without sagas: their entries have no witness. The
    # statement rows do: each import's and run's record counts them; the dry runs left none.
    assert verified == 1
    assert [f for f in findings if "has no witness" not in f] == []
