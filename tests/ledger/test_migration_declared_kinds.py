"""Migration 0008: journal_entry.kind takes declared kinds; nothing else about the table moves."""

from __future__ import annotations

import pytest
from alembic import command
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from sagas.foundations import alembic_config, make_engine
from sagas.ledger import Ledger, Leg
from tests.fixtures_audit import TEST_SIGNER
from tests.ledger._money import eur

BEFORE = "2026_11_22_0007"
FEE = [Leg("alice", eur(-3)), Leg("@fee-income:EUR", eur(3))]

SCHEMA = {
    # Every trigger and index on or reading journal_entry, as the database holds it.
    "sqlite": "SELECT type, name, tbl_name, sql FROM sqlite_master"
    " WHERE sql LIKE '%journal_entry%' AND type IN ('trigger', 'index') ORDER BY name",
    "postgresql": "SELECT tgname, tgrelid::regclass::text, pg_get_triggerdef(oid) FROM pg_trigger"
    " WHERE NOT tgisinternal UNION ALL SELECT conname, conrelid::regclass::text,"
    " pg_get_constraintdef(oid) FROM pg_constraint WHERE conname <> 'ck_journal_entry_kind'"
    " ORDER BY 1",
}


def schema(url: str) -> list[tuple[object, ...]]:
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            query = SCHEMA[connection.dialect.name]
            return [tuple(row) for row in connection.execute(text(query))]
    finally:
        engine.dispose()


def written(url: str) -> Ledger:
    ledger = Ledger.from_url(url, signer=TEST_SIGNER)
    ledger.open_account("alice", "EUR", opening_balance=eur(10))
    ledger.open_account("bob", "EUR")
    ledger.transfer("t-1", "alice", "bob", eur(4), saga_id="s-1")
    ledger.reverse("r-1", "t-1", saga_id="s-1")
    ledger.place_hold("h-1", "alice", eur(2), saga_id="s-2")
    ledger.capture_hold("c-1", "h-1", "bob", saga_id="s-2")
    return ledger


def test_the_upgrade_keeps_every_entry_chained_and_every_trigger(
    database_url: str, database_owner_url: str
) -> None:
    config = alembic_config(database_owner_url)
    command.downgrade(config, BEFORE)
    ledger = written(database_url)
    chain = [(e.sequence, e.entry_hash) for e in ledger.entries()]
    kept = schema(database_owner_url)
    ledger.close_connections()

    command.upgrade(config, "head")

    assert schema(database_owner_url) == kept
    assert [(e.sequence, e.entry_hash) for e in ledger.entries()] == chain
    assert ledger.chain_head().sequence == len(chain)
    ledger.declare(system_accounts=["fee-income"], entry_kinds=["fee"])
    ledger.post("f-1", FEE, kind="fee", saga_id="s-3")
    assert ledger.check_invariants() == []
    ledger.close_connections()


def test_the_downgrade_is_refused_while_declared_kinds_are_in_the_journal(
    database_url: str, database_owner_url: str
) -> None:
    ledger = written(database_url)
    ledger.declare(system_accounts=["fee-income"], entry_kinds=["fee"])
    ledger.post("f-1", FEE, kind="fee", saga_id="s-3")
    ledger.close_connections()

    with pytest.raises(RuntimeError, match="declared kinds fee"):
        command.downgrade(alembic_config(database_owner_url), BEFORE)

    assert [e.kind for e in ledger.entries(saga_id="s-3")] == ["fee"]
    assert ledger.check_invariants() == []
    ledger.close_connections()


def test_the_downgrade_restores_the_built_in_kinds_and_every_trigger(
    database_url: str, database_owner_url: str
) -> None:
    config = alembic_config(database_owner_url)
    ledger = written(database_url)
    kept = schema(database_owner_url)
    ledger.close_connections()

    command.downgrade(config, BEFORE)

    assert schema(database_owner_url) == kept
    ledger.declare(system_accounts=["fee-income"], entry_kinds=["fee"])
    with pytest.raises(IntegrityError, match=r"ck_journal_entry_kind|CHECK constraint failed"):
        ledger.post("f-1", FEE, kind="fee", saga_id="s-3")
    ledger.transfer("t-2", "alice", "bob", eur(1), saga_id="s-4")
    assert ledger.check_invariants() == []
    ledger.close_connections()
    command.upgrade(config, "head")
