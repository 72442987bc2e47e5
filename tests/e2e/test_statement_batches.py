"""Batches and kinds through the CLI and the worker: a batch booking of two payouts imports
with no break, a fee entry as large as a payout stays a fee and leaves the payout missing, a
batch return opens one break per returned payout naming it and the rail's reason; the rows
each import wrote are what its audit record counts (`ledger verify` finds nothing)."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import func, insert, select

from sagas.ledger import Ledger
from sagas.payouts import PAYOUT_CLEARING, PAYOUT_ENTRY
from sagas.reconcile import ReconcilePolicy, StatementRules, metadata
from tests.e2e.test_statement_actions import Worker, cli, rows, verify, worker
from tests.ledger._money import eur
from tests.reconcile.fixture_files import fixture
from tests.reconcile.test_matching import sent, settle, today

__all__ = ["worker"]  # the fixture, used by name

RULES = StatementRules(policy=ReconcilePolicy(grace=timedelta()), max_bytes=200_000, max_lines=50)


async def breaks(capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    _, out = await cli(capsys, "reconcile", "breaks", "-o", "json")
    found: list[dict[str, object]] = json.loads(out)
    return found


async def test_batches_fees_and_returns_import_as_the_rail_booked_them(
    worker: Worker, ledger: Ledger, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ledger.declare(system_accounts=[PAYOUT_CLEARING], entry_kinds=[PAYOUT_ENTRY])
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000_000))
    for key, minor in (("a", 25000), ("b", 12050)):
        settle(ledger, key, minor)
    day = today()
    batch, fee, returned = (tmp_path / name for name in ("batch.xml", "fee.xml", "return.xml"))
    batch.write_bytes(
        fixture(
            "camt053_batch_payouts.xml",
            day,
            E2E_A=sent("a"),
            E2E_B=sent("b"),
            TOTAL="370.50",
            CLOSING="9629.50",
        )
    )
    fee.write_bytes(
        fixture(
            "camt053_fee_and_return.xml",
            day,
            IBAN="DE02120300000000202051",
            OPENING="9629.50",  # the batch statement's closing: the account's statements chain
            CLOSING="9627.00",
            RETURN="",
        )
    )
    returned.write_bytes(fixture("camt054_batch_return.xml", day, E2E_A=sent("a"), E2E_B=sent("b")))

    async with worker(RULES):
        batched, out = await cli(capsys, "reconcile", "import", str(batch), "-o", "json")
        after_batch = await breaks(capsys)
        settle(ledger, "p", 250)
        charged, _ = await cli(capsys, "reconcile", "import", str(fee))
        after_fee = await breaks(capsys)
        back, _ = await cli(capsys, "reconcile", "import", str(returned))
        after_return = await breaks(capsys)
        verified, findings = await verify(capsys)

    assert (batched, json.loads(out)["matched"], after_batch) == (0, 2, [])
    assert charged == 1  # breaks are open
    assert sorted((b["kind"], b["reference"]) for b in after_fee) == [
        ("fee", ""),  # a fee names no payout
        ("missing_in_statement", sent("p")),
    ]
    assert back == 1
    returns = [b for b in after_return if b["kind"] == "missing_in_ledger"]
    assert sorted(str(b["reference"]) for b in returns) == sorted([sent("a"), sent("b")])
    details = " | ".join(str(b["detail"]) for b in returns)
    assert "AC04 (closed account)" in details
    assert "MD07 (end customer deceased)" in details
    # The payouts were posted straight to the ledger, with no saga run to witness them: those
    # entries are findings. The statement rows are not: each import's record counts them.
    assert verified == 1
    assert [f for f in findings if "has no witness" not in f] == []
    assert len(findings) == 7  # open:alice and capture and settle of a, b and p


async def test_a_transaction_match_written_with_the_clis_database_url_is_a_finding(
    worker: Worker,
    ledger: Ledger,
    database_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The CLI's environment without a token: its database URL hides a batch's unmatched
    transaction by writing its match under the genuine import's id, and adds a transaction to
    the batch's line under no action. `ledger verify` finds both."""
    ledger.declare(system_accounts=[PAYOUT_CLEARING], entry_kinds=[PAYOUT_ENTRY])
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000_000))
    settle(ledger, "a", 25000)
    batch = tmp_path / "batch.xml"
    batch.write_bytes(
        fixture(
            "camt053_batch_payouts.xml",
            today(),
            E2E_A=sent("a"),
            E2E_B=sent("b"),
            TOTAL="370.50",
            CLOSING="9629.50",
        )
    )
    async with worker(RULES):
        imported, _ = await cli(capsys, "reconcile", "import", str(batch))
        ((line_id, action_id),) = [
            (r["line_id"], r["action_id"]) for r in rows(ledger, "statement_line")
        ]
        unmatched = next(
            r["transaction_id"]
            for r in rows(ledger, "statement_transaction")
            if r["end_to_end_id"] == sent("b")
        )
        entry_b = settle(ledger, "b", 12050)

        mallory = Ledger.from_url(database_url)
        matches = metadata.tables["rail_transaction_match"]
        transactions = metadata.tables["statement_transaction"]
        with mallory.engine.begin() as connection:
            connection.execute(
                insert(matches).values(
                    transaction_id=unmatched,
                    entry_id=entry_b,
                    method="batch_reference",
                    matched_at=datetime.now(UTC),
                    action_id=action_id,
                )
            )
            connection.execute(
                insert(transactions).values(
                    line_id=line_id, position=3, end_to_end_id="FORGED", amount_minor=1
                )
            )
            forged = connection.scalar(select(func.max(transactions.c.transaction_id)))
        mallory.close_connections()
        code, findings = await verify(capsys)

    assert (imported, code) == (1, 1)
    assert any(
        f"action {action_id}: record" in f and "'matched': 1" in f and "'matched': 2" in f
        for f in findings
    ), findings
    assert any(f"statement transaction {forged} names no operator action" in f for f in findings)
