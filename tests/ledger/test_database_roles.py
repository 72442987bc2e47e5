"""On PostgreSQL the worker role can only do what the application does, and the triggers refuse
changes even to the owner role, which holds the privileges.

Every test first writes through the application as the worker (accounts, a funding and a
transfer, an active hold, an audit record), so each refused statement would change real rows.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import psycopg.errors
import pytest
from alembic import command
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from sagas import CompensationEntry, SagaStatus, Snapshot
from sagas.audit import open_audit_store
from sagas.engine import RunClaim
from sagas.foundations import DATABASE_OWNER_ROLE, DATABASE_WORKER_ROLE, alembic_config
from sagas.ledger import HoldStatus, Ledger, clearing_account_id
from tests.fixtures_audit import TEST_KEYS
from tests.fixtures_db import NewPostgresDatabase, postgres_role_url
from tests.ledger._money import eur

pytestmark = [pytest.mark.postgres, pytest.mark.long]

TABLES = ("account", "journal_entry", "posting", "hold", "audit_record")
TRIGGERS = {
    "journal_entry": "journal_entry_refuse_change",
    "posting": "posting_refuse_change",
    "hold": "hold_refuse_change",
    "audit_record": "audit_record_refuse_change",
}
TRIGGER_FUNCTIONS = ("ledger_refuse_change", "hold_refuse_change", "audit_record_refuse_change")
REFUSED_TO_THE_WORKER = [
    *(
        statement
        for table, change in [
            ("journal_entry", "SET saga_id = 'forged'"),
            ("posting", "SET amount = amount + 1"),
            ("audit_record", "SET kind = 'forged'"),
        ]
        for statement in (f"UPDATE {table} {change}", f"DELETE FROM {table}", f"TRUNCATE {table}")
    ),
    "DELETE FROM hold",
    "UPDATE hold SET amount = amount * 2",
    "UPDATE account SET overdraft = 1000000",
    "DELETE FROM account",
    "DELETE FROM journal_head",
    "TRUNCATE journal_head",
    *(f"ALTER TABLE {table} DISABLE TRIGGER {name}" for table, name in TRIGGERS.items()),
    *(f"DROP TRIGGER {name} ON {table}" for table, name in TRIGGERS.items()),
    f"SET ROLE {DATABASE_OWNER_ROLE}",
]
REFUSED_TO_THE_OWNER = [
    ("UPDATE journal_entry SET saga_id = 'forged'", "journal_entry is immutable: UPDATE"),
    ("DELETE FROM journal_entry", "journal_entry is immutable: DELETE"),
    ("UPDATE posting SET amount = amount + 1", "posting is immutable: UPDATE"),
    ("DELETE FROM posting", "posting is immutable: DELETE"),
    ("UPDATE audit_record SET kind = 'forged'", "audit_record is append-only: UPDATE"),
    ("DELETE FROM audit_record", "audit_record is append-only: DELETE"),
    ("UPDATE hold SET amount = amount * 2", "hold changes only .*: UPDATE"),
    ("UPDATE hold SET status = 'voided', account_id = 'bob'", "hold changes only .*: UPDATE"),
    ("DELETE FROM hold", "hold changes only .*: DELETE"),
]
READ_AND_APPEND = frozenset({"SELECT", "INSERT"})
UPDATE = frozenset({"UPDATE"})
WORKER_PRIVILEGES = {
    "journal_entry": READ_AND_APPEND,
    "posting": READ_AND_APPEND,
    "audit_record": READ_AND_APPEND,
    "saga_claim": READ_AND_APPEND,
    "account": READ_AND_APPEND,
    "account.balance": UPDATE,
    "account.held": UPDATE,
    "account.status": UPDATE,
    "account.status_version": UPDATE,
    "account.updated_at": UPDATE,
    "account_status_change": READ_AND_APPEND,
    "hold": READ_AND_APPEND,
    "hold.status": UPDATE,
    "hold.closed_at": UPDATE,
    "hold.key_id": UPDATE,
    "hold.signature": UPDATE,
    "journal_seal": READ_AND_APPEND,
    "journal_head": frozenset({"SELECT"}),
    "journal_head.sequence": UPDATE,
    "journal_head.entry_hash": UPDATE,
    "saga_snapshot": READ_AND_APPEND,
    "saga_snapshot.attempt": UPDATE,
    "statement_file": READ_AND_APPEND,
    "bank_statement": READ_AND_APPEND,
    "statement_line": READ_AND_APPEND,
    "rail_match": READ_AND_APPEND,
    "statement_transaction": READ_AND_APPEND,
    "rail_transaction_match": READ_AND_APPEND,
    "operator_token_use": READ_AND_APPEND,
    "reconciliation_break": READ_AND_APPEND,
    "reconciliation_break.status": UPDATE,
    "reconciliation_break.note": UPDATE,
    "reconciliation_break.evidence": UPDATE,
    "reconciliation_break.explained_by": UPDATE,
    "reconciliation_break.resolved_by": UPDATE,
    "reconciliation_break.adjustment_entry_id": UPDATE,
    "reconciliation_break.updated_at": UPDATE,
    "reconciliation_break.version": UPDATE,
    "reconciliation_break.closed_by_action": UPDATE,
    "statement_file_file_id_seq": frozenset({"USAGE"}),
    "bank_statement_bank_statement_id_seq": frozenset({"USAGE"}),
    "statement_line_line_id_seq": frozenset({"USAGE"}),
    "statement_transaction_transaction_id_seq": frozenset({"USAGE"}),
    "reconciliation_break_break_id_seq": frozenset({"USAGE"}),
    "alembic_version": frozenset({"SELECT"}),
    "hold_hold_id_seq": frozenset({"USAGE"}),
    "journal_entry_entry_id_seq": frozenset({"USAGE"}),
    "posting_posting_id_seq": frozenset({"USAGE"}),
}
"""Everything the worker may do, by table, `table.column` (UPDATE only) and sequence."""
PRIVILEGES = """
    SELECT relname, privilege FROM pg_class,
        unnest(ARRAY['SELECT', 'INSERT', 'UPDATE', 'DELETE', 'TRUNCATE', 'REFERENCES', 'TRIGGER'])
        AS privilege
    WHERE relnamespace = CAST(current_schema() AS regnamespace) AND relkind = 'r'
        AND has_table_privilege(:role, pg_class.oid, privilege)
    UNION ALL
    SELECT relname || '.' || attname, 'UPDATE' FROM pg_class JOIN pg_attribute ON attrelid = oid
    WHERE relnamespace = CAST(current_schema() AS regnamespace) AND relkind = 'r'
        AND attnum > 0 AND NOT attisdropped AND has_column_privilege(:role, oid, attnum, 'UPDATE')
    UNION ALL
    SELECT relname, privilege FROM pg_class, unnest(ARRAY['USAGE', 'SELECT', 'UPDATE']) AS privilege
    WHERE relnamespace = CAST(current_schema() AS regnamespace) AND relkind = 'S'
        AND has_sequence_privilege(:role, pg_class.oid, privilege)
"""
SEQUENCES = ("hold_hold_id_seq", "journal_entry_entry_id_seq", "posting_posting_id_seq")
DOCS = Path(__file__).resolve().parents[2] / "docs"


def write_through_the_application(url: str) -> None:
    ledger = Ledger.from_url(url)
    store = open_audit_store(f"db:{url}", TEST_KEYS)
    try:
        ledger.open_account("alice", "EUR", opening_balance=eur(1_000))
        ledger.open_account("bob", "EUR")
        ledger.transfer("s:credit:action", "alice", "bob", eur(100), saga_id="s")
        ledger.place_hold("t:reserve:action", "alice", eur(50), saga_id="t")
        store.append(kind="terminal", saga_id="s", dedupe_key="s:terminal", payload={"n": 1})
    finally:
        store.close_connections()
        ledger.close_connections()


def rows(engine: Engine) -> dict[str, list[tuple[object, ...]]]:
    with engine.connect() as connection:
        return {
            table: [tuple(row) for row in connection.execute(text(f"SELECT * FROM {table}"))]
            for table in TABLES
        }


def refusal(engine: Engine, statement: str) -> DBAPIError:
    with pytest.raises(DBAPIError) as raised, engine.begin() as connection:
        connection.exec_driver_sql(statement)
    return raised.value


def plain_engine(url: str) -> Iterator[Engine]:
    engine = create_engine(url, poolclass=NullPool)
    yield engine
    engine.dispose()


@pytest.fixture
def worker(postgres_url: str) -> Iterator[Engine]:
    """A connection as the worker role, to a database the application has written to."""
    write_through_the_application(postgres_url)
    yield from plain_engine(postgres_url)


@pytest.fixture
def owner(worker: Engine, postgres_owner_url: str) -> Iterator[Engine]:
    """The same database as the owner role, which holds every privilege on its tables."""
    yield from plain_engine(postgres_owner_url)


@pytest.mark.parametrize("statement", REFUSED_TO_THE_WORKER)
def test_the_worker_is_refused_by_privilege(worker: Engine, statement: str) -> None:
    before = rows(worker)
    assert all(before.values())

    refused = refusal(worker, statement)

    assert isinstance(refused.orig, psycopg.errors.InsufficientPrivilege)
    assert re.search("permission denied|must be owner", str(refused.orig))
    assert rows(worker) == before


@pytest.mark.parametrize(("statement", "message"), REFUSED_TO_THE_OWNER)
def test_the_owner_is_refused_by_the_triggers(
    worker: Engine, owner: Engine, statement: str, message: str
) -> None:
    before = rows(worker)
    assert [row.status for row in Ledger(worker).holds()] == [HoldStatus.ACTIVE]

    refused = refusal(owner, statement)

    assert isinstance(refused.orig, psycopg.errors.RestrictViolation)
    assert re.search(f"{message} refused", str(refused.orig))
    assert rows(worker) == before


def worker_privileges(engine: Engine) -> dict[str, set[str]]:
    """What the worker may do, by table, `table.column` (UPDATE) and sequence, in any way."""
    held: dict[str, set[str]] = {}
    with engine.connect() as connection:
        found = connection.execute(text(PRIVILEGES), {"role": DATABASE_WORKER_ROLE})
        for name, privilege in found:
            held.setdefault(name, set()).add(privilege)
    return held


def test_the_worker_holds_only_what_the_application_uses(worker: Engine) -> None:
    assert worker_privileges(worker) == WORKER_PRIVILEGES


def test_a_downgrade_takes_the_worker_s_grants_back(
    postgres_url: str, postgres_owner_url: str
) -> None:
    """On a ledger that holds no entry yet: one written since revision 0011 was placed by the
    sealer, and has no place of its own to go back to."""
    config = alembic_config(postgres_owner_url)
    worker = create_engine(postgres_url, poolclass=NullPool)

    command.downgrade(config, "2026_11_22_0005")
    downgraded = worker_privileges(worker)
    assert "permission denied" in str(refusal(worker, "SELECT * FROM account"))
    command.upgrade(config, "head")

    assert downgraded == {"audit_record": {"SELECT", "INSERT"}}, "as fundsaga_audit_writer"
    assert worker_privileges(worker) == WORKER_PRIVILEGES
    ledger = Ledger(worker)
    ledger.open_account("dave", "EUR", opening_balance=eur(5))
    assert ledger.check_invariants() == []
    with pytest.raises(RuntimeError, match="cannot downgrade below 2026_11_26_0011"):
        command.downgrade(config, "2026_11_22_0005")
    worker.dispose()


def test_the_owner_role_owns_every_table_and_trigger_function(worker: Engine) -> None:
    owners = (
        "SELECT relname, pg_get_userbyid(relowner) FROM pg_class"
        " WHERE relnamespace = CAST(current_schema() AS regnamespace) AND relkind IN ('r', 'S')"
        " UNION ALL SELECT proname, pg_get_userbyid(proowner) FROM pg_proc"
        " WHERE pronamespace = CAST(current_schema() AS regnamespace)"
    )
    with worker.connect() as connection:
        owned: dict[str, str] = dict(connection.execute(text(owners)).all())

    assert set(owned) >= {*TABLES, *SEQUENCES, *TRIGGER_FUNCTIONS, "alembic_version"}
    assert set(owned.values()) == {DATABASE_OWNER_ROLE}


def dba_setup() -> tuple[list[str], str]:
    """The DBA's role statements from docs/operations.md, without passwords (the test server
    trusts), and the owner the database is created with."""
    doc = (DOCS / "operations.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- sql:dba-setup -->\n```sql\n(.*?)\n```", doc, re.DOTALL)
    assert match is not None, "docs/operations.md has no <!-- sql:dba-setup --> block"
    statements = [s.strip() for s in match.group(1).split(";") if s.strip()]
    created = [s for s in statements if s.startswith("CREATE DATABASE")]
    assert len(created) == 1
    owned_by = re.fullmatch(r"CREATE DATABASE \w+ OWNER (\w+)", created[0])
    assert owned_by is not None, created[0]
    roles = [re.sub(r" PASSWORD '[^']*'", "", s) for s in statements if s not in created]
    return roles, owned_by.group(1)


def run_as_dba(admin: Engine, statements: list[str]) -> None:
    for statement in statements:
        try:
            with admin.connect() as connection:
                connection.exec_driver_sql(statement)
        except DBAPIError as exc:
            # Roles are cluster-wide: other test databases' migrations already made them.
            if not isinstance(
                exc.orig, psycopg.errors.DuplicateObject | psycopg.errors.UniqueViolation
            ):
                raise


def test_the_documented_deploy_migrates_as_the_owner_and_serves_the_worker(
    postgres_admin: Engine, new_postgres_database: NewPostgresDatabase
) -> None:
    roles, owner_role = dba_setup()
    run_as_dba(postgres_admin, roles)
    powers = "SELECT rolsuper OR rolcreaterole OR rolcreatedb FROM pg_roles WHERE rolname = :r"
    with postgres_admin.connect() as connection:
        assert connection.scalar(text(powers), {"r": owner_role}) is False
    assert owner_role == DATABASE_OWNER_ROLE

    database = new_postgres_database(owner=owner_role)
    url = postgres_role_url(database, DATABASE_WORKER_ROLE)
    write_through_the_application(url)
    ledger = Ledger.from_url(url)
    try:
        run_a_saga(ledger)
        assert ledger.account("alice").balance == eur(900)
        assert ledger.account("bob").balance == eur(100)
        assert [h.status for h in ledger.holds()] == [HoldStatus.VOIDED, HoldStatus.POSTED]
        assert [s.attempt for s in ledger.snapshots("transfer-u")] == [2]
        assert ledger.check_invariants() == []
    finally:
        ledger.close_connections()


def run_a_saga(ledger: Ledger) -> None:
    """Every kind of write a saga and an operator make: claim, snapshot, hold, entries, status."""
    claim = RunClaim(saga_id="transfer-u", saga_type="transfer", run_chain="chain-u")
    snapshot = Snapshot(
        saga_id="transfer-u",
        saga_type="transfer",
        step_index=0,
        step_name="reserve",
        status=SagaStatus.RUNNING,
        data={},
        compensation_stack=[CompensationEntry(step_index=0, step_name="reserve", compensation="u")],
        recorded_at=datetime.now(UTC),
    )
    ledger.begin_step(claim, snapshot)
    ledger.record_snapshot(snapshot.model_copy(update={"attempt": 2}))
    ledger.place_hold("u:reserve:action", "bob", eur(30), saga_id="transfer-u")
    clearing = clearing_account_id("EUR")
    ledger.capture_hold("u:capture:action", "u:reserve:action", clearing, saga_id="transfer-u")
    ledger.reverse("u:capture:undo", "u:capture:action", saga_id="transfer-u")
    ledger.void_hold("t:reserve:action", saga_id="t")
    ledger.freeze("alice")
    ledger.unfreeze("alice")
    ledger.open_account("carol", "EUR")
    ledger.close_account("carol")
