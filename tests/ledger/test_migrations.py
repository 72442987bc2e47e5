from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect

from sagas.audit import metadata as audit_metadata
from sagas.foundations import alembic_config, make_engine
from sagas.ledger import Ledger, metadata
from sagas.reconcile import metadata as reconcile_metadata
from tests.ledger._money import eur

LEDGER_TABLES = {
    "account",
    "journal_entry",
    "journal_head",
    "journal_seal",
    "account_status_change",
    "posting",
    "hold",
    "saga_snapshot",
    "statement_file",
    "bank_statement",
    "statement_line",
    "rail_match",
    "statement_transaction",
    "rail_transaction_match",
    "reconciliation_break",
    "saga_claim",
    "operator_token_use",
    "audit_record",
}
REPO = Path(__file__).resolve().parents[2]


def table_names(url: str) -> set[str]:
    engine = make_engine(url)
    try:
        return set(inspect(engine).get_table_names())
    finally:
        engine.dispose()


def test_the_migration_downgrades_and_upgrades_cleanly(
    database_url: str, database_owner_url: str
) -> None:
    config = alembic_config(database_owner_url)
    assert table_names(database_url) == LEDGER_TABLES | {"alembic_version"}

    command.downgrade(config, "base")
    assert table_names(database_url) == {"alembic_version"}
    command.upgrade(config, "head")

    assert table_names(database_url) == LEDGER_TABLES | {"alembic_version"}
    ledger = Ledger.from_url(database_url)
    try:
        ledger.open_account("alice", "EUR", opening_balance=eur(1))
        assert ledger.check_invariants() == []
    finally:
        ledger.engine.dispose()


def test_the_migrated_schema_matches_the_models(database_url: str) -> None:
    engine = make_engine(database_url)
    try:
        with engine.connect() as connection:
            context = MigrationContext.configure(connection)
            both = [
                metadata,
                audit_metadata,
                reconcile_metadata,
            ]  # alembic takes a sequence, as in target_metadata
            differences = compare_metadata(context, both)  # type: ignore[arg-type]
    finally:
        engine.dispose()

    assert differences == []


def test_the_alembic_cli_takes_the_url_from_the_settings(tmp_path: Path) -> None:
    database = tmp_path / "nested" / "cli.db"
    env = {**os.environ, "FUNDSAGA_DATABASE_URL": f"sqlite:///{database}"}

    subprocess.run(
        [sys.executable, "-m", "alembic", "-c", "migrations/alembic.ini", "upgrade", "head"],
        cwd=REPO,
        env=env,
        check=True,
        capture_output=True,
    )

    assert table_names(f"sqlite:///{database}") == LEDGER_TABLES | {"alembic_version"}
