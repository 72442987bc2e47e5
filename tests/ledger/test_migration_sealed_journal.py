"""Revision 0011 on a ledger the chained journal wrote: the chaos run's, verified before and after.

The fixture is the ledger of a chaos run (`python -m tooling.chaos --transfers 40 --fees 6 --fx 4
--sweeps 2 --kills 10 --restarts 1 --outage-seconds 10 --terminations 1 --seed 11`, which
passed) made by the code of revision 2026_11_22_0010 (commit afd5ed6): its accounts, journal,
postings, holds and head as the database held them, and the public key that signed them. Each
test loads it into a database at that revision through the revision's own triggers, in journal
order, so every entry appends at the head as it did then; checks the chain by the old chain's
rules; upgrades; and verifies the ledger as `fundsaga ledger verify` does.
"""

from __future__ import annotations

import gzip
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import Connection, TableClause, column, insert, table, update

from sagas.audit import Keyring, SigningKey
from sagas.foundations import Money, alembic_config, make_engine
from sagas.ledger import GENESIS_HASH, ChainHead, Ledger, entry_hash, metadata, proof_hash
from sagas.ledger._signing import entry_message

# the migration's DDL differs by database.
pytestmark = pytest.mark.databases_differ

FIXTURES = Path(__file__).parent / "fixtures"
CHAOS_LEDGER = FIXTURES / "chaos_ledger_0010.json.gz"
CHAOS_KEY = FIXTURES / "chaos_ledger_0010.pub"
BEFORE = "2026_11_22_0010"
Rows = dict[str, list[dict[str, Any]]]
TIMES = {"created_at", "updated_at", "closed_at"}


def chaos_ledger() -> Rows:
    rows: Rows = json.loads(gzip.decompress(CHAOS_LEDGER.read_bytes()))
    for table_rows in rows.values():
        for row in table_rows:
            for name in TIMES & row.keys():
                if row[name] is not None:
                    row[name] = datetime.fromisoformat(row[name]).replace(tzinfo=UTC)
    return rows


def chained_findings(rows: Rows, keyring: Keyring) -> list[str]:
    """The old chain's rules: gapless, linked, each hash over its place and postings, signed."""
    postings: dict[int, list[tuple[str, str, int, int | None]]] = {}
    for posting in rows["posting"]:
        postings.setdefault(posting["entry_id"], []).append(
            (
                posting["account_id"],
                posting["currency"],
                posting["amount"],
                posting["balance_after"],
            )
        )
    findings, prev_hash = [], GENESIS_HASH
    for number, entry in enumerate(rows["journal_entry"], start=1):
        digest = entry_hash(
            sequence=number,
            prev_hash=prev_hash,
            key=entry["idempotency_key"],
            saga_id=entry["saga_id"],
            kind=entry["kind"],
            reverses_entry_id=entry["reverses_entry_id"],
            created_at=entry["created_at"],
            postings=postings.get(entry["entry_id"], []),
        )
        if (entry["sequence"], entry["prev_hash"], entry["entry_hash"]) != (
            number,
            prev_hash,
            digest,
        ):
            findings.append(f"entry #{number}: not chained")
        problem = keyring.problem(entry["key_id"], entry["signature"], entry_message(digest))
        if problem is not None:
            findings.append(f"entry #{number}: {problem}")
        prev_hash = entry["entry_hash"]
    return findings


def as_at_revision(name: str, rows: Rows) -> TableClause:
    """The table with the columns it had at the fixture's revision (those its rows hold)."""
    types = metadata.tables[name].c
    return table(name, *(column(key, types[key].type) for key in rows[name][0]))


def load_through_the_triggers(db: Connection, rows: Rows) -> None:
    """Accounts open empty and active; each entry appends at the head with its postings and
    moves its accounts and the head, in journal order; then the holds and final statuses."""
    account, entry, posting, head, hold = (
        as_at_revision(name, rows)
        for name in ("account", "journal_entry", "posting", "journal_head", "hold")
    )
    opened = [{**row, "balance": 0, "held": 0, "status": "active"} for row in rows["account"]]
    db.execute(insert(account), opened)
    postings: dict[int, list[dict[str, Any]]] = {}
    for row in rows["posting"]:
        postings.setdefault(row["entry_id"], []).append(row)
    for row in rows["journal_entry"]:
        db.execute(insert(entry), row)
        for leg in postings.get(row["entry_id"], []):
            db.execute(insert(posting), leg)
            db.execute(
                update(account)
                .where(account.c.account_id == leg["account_id"])
                .values(balance=leg["balance_after"])
            )
        db.execute(update(head).values(sequence=row["sequence"], entry_hash=row["entry_hash"]))
    db.execute(insert(hold), rows["hold"])
    for row in rows["account"]:
        db.execute(
            update(account)
            .where(account.c.account_id == row["account_id"])
            .values(held=row["held"], status=row["status"], updated_at=row["updated_at"])
        )
    if db.dialect.name == "postgresql":  # the rows came with their ids: the serials follow
        for name, key in (
            ("journal_entry", "entry_id"),
            ("posting", "posting_id"),
            ("hold", "hold_id"),
        ):
            db.exec_driver_sql(
                f"SELECT setval(pg_get_serial_sequence('{name}', '{key}'), max({key})) FROM {name}"
            )


def test_the_chaos_run_s_chained_ledger_verifies_before_and_after_the_upgrade(
    database_url: str, database_owner_url: str
) -> None:
    config = alembic_config(database_owner_url)
    command.downgrade(config, BEFORE)
    rows = chaos_ledger()
    chaos_keys = Keyring.read([CHAOS_KEY])
    assert rows["alembic_version"] == [{"version_num": BEFORE}]
    assert chained_findings(rows, chaos_keys) == []
    owner = make_engine(database_owner_url)
    with owner.begin() as db:
        load_through_the_triggers(db, rows)
    owner.dispose()

    command.upgrade(config, "head")

    writer = SigningKey.generate()
    ledger = Ledger.from_url(database_url, signer=writer)
    try:
        last = rows["journal_head"][0]
        assert ledger.chain_head() == ChainHead(last["sequence"], last["entry_hash"])
        assert [(e.sequence, e.entry_hash) for e in ledger.entries()] == [
            (row["sequence"], row["entry_hash"]) for row in rows["journal_entry"]
        ]
        assert ledger.unsealed_entries() == 0
        assert {
            a.account_id: (a.balance.minor, a.held.minor, a.status.value)
            for a in ledger.accounts(include_system=True)
        } == {a["account_id"]: (a["balance"], a["held"], a["status"]) for a in rows["account"]}
        assert ledger.check_invariants() == []
        keys = Keyring(chaos_keys.keys | Keyring.of([writer.public]).keys)
        assert ledger.signature_findings(keys.problem) == []

        customers = [
            a.account_id for a in ledger.accounts() if a.status == "active" and a.currency == "EUR"
        ]
        ledger.transfer("after-0011", customers[0], customers[1], Money.of(1, "EUR"), saga_id="s")
        assert ledger.seal().sequence == last["sequence"] + 1
        assert ledger.check_invariants() == []
        assert ledger.signature_findings(keys.problem) == []
        sagas = sorted({e.saga_id for e in ledger.entries() if e.saga_id is not None})
        proofs = [proof for saga in sagas for proof in ledger.entry_proofs(saga)]
        assert {proof.writer_link is None for proof in proofs} == {True, False}
        assert all(proof_hash(proof) == proof.entry_hash for proof in proofs)
    finally:
        ledger.close_connections()
