"""sealed journal: no row that every posting locks, and account status as evidence

Writers no longer take the journal head: each entry is hashed and signed on its own, with no
place in a chain (sequence and prev_hash stay NULL), and the sealer gives it its place later in
journal_seal, whose head journal_head now is. Entries chained before this revision keep their
columns; each gets the seal row that repeats its place. A system account's row is no longer
written by postings: its balance is the sum of its postings (zeroed on the row here), and its
postings carry no running balance. Account status changes are recorded in the append-only,
signed account_status_change, which an account's status must match.

On PostgreSQL every trigger function names its tables with the schema they live in and runs
with a fixed search_path, so that a TEMP table cannot stand in for one of them.

Revision ID: 2026_11_26_0011
Revises: 2026_11_22_0010
Create Date: 2026-11-26 13:00:00
"""

from __future__ import annotations

import importlib.util
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import sqlalchemy as sa
from alembic import op

from sagas.foundations import DATABASE_OWNER_ROLE as OWNER
from sagas.foundations import DATABASE_WORKER_ROLE as WORKER
from sagas.foundations import UtcDateTime

revision: str = "2026_11_26_0011"
down_revision: str | Sequence[str] | None = "2026_11_22_0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

GENESIS = "0" * 64
MIGRATED = "migrated"
"""The key_id of a status change this revision recorded for a status set before it."""
S = "{schema}"
"""Where the tables live: the schema on PostgreSQL (filled in at upgrade), nothing on SQLite."""
LATEST_BALANCE = (
    f"(SELECT p.balance_after FROM {S}posting p WHERE p.account_id = NEW.account_id"
    " ORDER BY p.posting_id DESC LIMIT 1)"
)
SYSTEM = "NEW.account_id LIKE '@%'"
# Each rule: (name, table, timing, condition that must hold, message).
RULES = (
    (
        "journal_entry_unsealed",
        "journal_entry",
        "INSERT",
        "NEW.sequence IS NULL AND NEW.prev_hash IS NULL",
        "a journal entry is written unsealed: the sealer gives it its place",
    ),
    (
        "journal_seal_links",
        "journal_seal",
        "INSERT",
        f"(NEW.sequence = 1 AND NEW.prev_hash = '{GENESIS}') OR NEW.prev_hash ="
        f" (SELECT s.chain_hash FROM {S}journal_seal s WHERE s.sequence = NEW.sequence - 1)",
        "a seal links to the seal before it",
    ),
    (
        "journal_head_advances",
        "journal_head",
        "UPDATE",
        "NEW.head_id = OLD.head_id AND NEW.sequence >= OLD.sequence AND NEW.entry_hash ="
        f" (SELECT s.chain_hash FROM {S}journal_seal s WHERE s.sequence = NEW.sequence)",
        "the journal head moves only forward, onto a seal",
    ),
    (
        "posting_balance_follows",
        "posting",
        "INSERT",
        f"({SYSTEM} AND NEW.balance_after IS NULL) OR (NOT ({SYSTEM})"
        f" AND NEW.balance_after = COALESCE({LATEST_BALANCE}, 0) + NEW.amount)",
        "a customer posting balance_after is the previous balance of its account plus its amount;"
        " a system posting has none",
    ),
    (
        "account_opens_empty",
        "account",
        "INSERT",
        "NEW.balance = 0 AND NEW.held = 0 AND NEW.status = 'active' AND NEW.status_version = 0",
        "an account opens active with nothing: money arrives by postings",
    ),
    (
        "account_balance_explained",
        "account",
        "UPDATE",
        f"NEW.balance = OLD.balance OR (NOT NEW.is_system AND NEW.balance = {LATEST_BALANCE})",
        "an account balance changes only to the balance its latest posting reached",
    ),
    (
        "account_identity_fixed",
        "account",
        "UPDATE",
        "NEW.account_id = OLD.account_id AND NEW.currency = OLD.currency"
        " AND NEW.is_system = OLD.is_system AND NEW.overdraft = OLD.overdraft",
        "an account keeps its id, currency, kind and limit",
    ),
    (
        "account_status_recorded",
        "account",
        "UPDATE",
        "(NEW.status = OLD.status AND NEW.status_version = OLD.status_version)"
        " OR (NEW.status_version = OLD.status_version + 1 AND EXISTS (SELECT 1 FROM"
        f" {S}account_status_change c WHERE c.account_id = NEW.account_id"
        " AND c.version = NEW.status_version AND c.status = NEW.status))",
        "an account status changes only as its next recorded status change says",
    ),
    (
        "account_status_change_follows",
        "account_status_change",
        "INSERT",
        f"(NEW.key_id IS NULL OR NEW.key_id <> '{MIGRATED}') AND NEW.version = 1 + COALESCE("
        f"(SELECT max(c.version) FROM {S}account_status_change c"
        " WHERE c.account_id = NEW.account_id), 0)",
        "a status change takes the next version of its account",
    ),
)
OLD_RULES = (
    "journal_entry_appends_at_head",
    "journal_head_advances",
    "posting_balance_follows",
    "account_opens_empty",
    "account_balance_explained",
    "account_identity_fixed",
)
"""Revision 0007's rules, on the tables they were on: all replaced here."""
OLD_RULE_TABLES = {
    "journal_entry_appends_at_head": "journal_entry",
    "journal_head_advances": "journal_head",
    "posting_balance_follows": "posting",
    "account_opens_empty": "account",
    "account_balance_explained": "account",
    "account_identity_fixed": "account",
}
TABLE_FREE_FUNCTIONS = (
    "ledger_refuse_change()",
    "hold_refuse_change()",
    "audit_record_refuse_change()",
)
POSTING_BALANCE_0007 = "balance_after BIGINT DEFAULT '0' NOT NULL"
"""How revision 0007 added the column on SQLite."""
NEW_IMMUTABLE = ("journal_seal", "account_status_change")
ACCOUNT_CHECKS = (
    ("system_derived", "NOT is_system OR (balance = 0 AND held = 0 AND overdraft = 0)"),
    ("system_prefix", "is_system = (account_id LIKE '@%')"),
)


def upgrade() -> None:
    dialect = _dialect()
    op.create_table(
        "journal_seal",
        sa.Column("sequence", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("entry_id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("chain_hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("sequence", name="pk_journal_seal"),
        sa.UniqueConstraint("entry_id", name="uq_journal_seal_entry_id"),
        sa.ForeignKeyConstraint(
            ["entry_id"],
            ["journal_entry.entry_id"],
            name="fk_journal_seal_entry_id_journal_entry",
        ),
    )
    op.execute(
        "INSERT INTO journal_seal (sequence, entry_id, prev_hash, chain_hash)"
        " SELECT sequence, entry_id, prev_hash, entry_hash FROM journal_entry ORDER BY sequence"
    )
    op.create_table(
        "account_status_change",
        sa.Column("account_id", sa.String(64), nullable=False),
        sa.Column("version", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("changed_at", UtcDateTime(), nullable=False),
        sa.Column("key_id", sa.String(16), nullable=True),
        sa.Column("signature", sa.String(88), nullable=True),
        sa.PrimaryKeyConstraint("account_id", "version", name="pk_account_status_change"),
        sa.ForeignKeyConstraint(
            ["account_id"],
            ["account.account_id"],
            name="fk_account_status_change_account_id_account",
        ),
        sa.CheckConstraint(
            "status IN ('active', 'frozen', 'closed')", name="ck_account_status_change_status"
        ),
    )
    op.execute(
        "INSERT INTO account_status_change (account_id, version, status, changed_at, key_id)"
        f" SELECT account_id, 1, status, updated_at, '{MIGRATED}' FROM account"
        " WHERE status <> 'active'"
    )
    op.add_column(
        "account",
        sa.Column("status_version", sa.Integer(), nullable=False, server_default="0"),
    )
    if dialect == "sqlite":
        _upgrade_sqlite()
    else:
        _upgrade_postgresql()


def _upgrade_sqlite() -> None:
    for name in OLD_RULES:
        op.execute(f"DROP TRIGGER {name}")
    checks = "".join(
        f", \n\tCONSTRAINT ck_account_{name} CHECK ({check})" for name, check in ACCOUNT_CHECKS
    )
    available = (
        "CONSTRAINT ck_account_available CHECK (is_system OR balance - held + overdraft >= 0)"
    )
    _rebuild_sqlite(
        "account",
        [(available, available + checks)],
        "account_id, currency, status, is_system,"
        " CASE WHEN is_system THEN 0 ELSE balance END, held, overdraft, created_at, updated_at,"
        " CASE WHEN status = 'active' THEN 0 ELSE 1 END",
    )
    _rebuild_sqlite(
        "journal_entry",
        [
            ("sequence BIGINT DEFAULT '0' NOT NULL", "sequence BIGINT"),
            ("prev_hash VARCHAR(64) DEFAULT '' NOT NULL", "prev_hash VARCHAR(64)"),
        ],
    )
    _rebuild_sqlite(
        "posting", [("balance_after BIGINT DEFAULT '0' NOT NULL", "balance_after BIGINT")]
    )
    for statement in _sqlite_rules():
        op.execute(statement)


def _rebuild_sqlite(table: str, edits: list[tuple[str, str]], columns: str = "*") -> None:
    """SQLite changes a column's nullability or a CHECK only with its table: rebuilt under its
    own name, rows, indexes and triggers put back (foreign keys checked deferred meanwhile)."""
    bind = op.get_bind()
    created = bind.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?", (table,)
    ).scalar_one()
    for old, new in edits:
        if old not in created:
            raise RuntimeError(f"{table} has no {old!r}: its schema was changed by hand")
        created = created.replace(old, new)
    attached = (
        bind.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE tbl_name = ?"
            " AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, name",
            (table,),
        )
        .scalars()
        .all()
    )
    copy = f"{table}_0011"
    for statement in (
        "PRAGMA defer_foreign_keys = ON",
        f"CREATE TEMP TABLE {copy} AS SELECT * FROM {table}",
        f"DROP TABLE {table}",
        created,
        f"INSERT INTO {table} SELECT {columns} FROM {copy} ORDER BY rowid",
        f"DROP TABLE {copy}",
        *attached,
    ):
        bind.exec_driver_sql(statement)


def _sqlite_rules() -> list[str]:
    statements = [
        # IS NOT 1, not NOT: a condition that is NULL (a subquery that found nothing) refuses.
        f"""CREATE TRIGGER {name} BEFORE {timing} ON {table}
        WHEN ({condition.format(schema="")}) IS NOT 1
        BEGIN SELECT RAISE(ABORT, '{message}'); END"""
        for name, table, timing, condition, message in RULES
    ]
    for table in NEW_IMMUTABLE:
        for action in ("UPDATE", "DELETE"):
            statements.append(
                f"""CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table}
                BEGIN SELECT RAISE(ABORT, '{table} is immutable: {action} refused'); END"""
            )
    return statements


def _upgrade_postgresql() -> None:
    schema = op.get_bind().exec_driver_sql("SELECT quote_ident(current_schema())").scalar_one()
    for name in OLD_RULES:
        op.execute(f"DROP TRIGGER {name} ON {OLD_RULE_TABLES[name]}")
        op.execute(f"DROP FUNCTION {name}()")
    op.execute("UPDATE account SET balance = 0 WHERE is_system")
    op.execute("UPDATE account SET status_version = 1 WHERE status <> 'active'")
    op.alter_column("account", "status_version", server_default=None)
    for name, check in ACCOUNT_CHECKS:
        op.execute(f"ALTER TABLE account ADD CONSTRAINT ck_account_{name} CHECK ({check})")
    for table, column in (
        ("journal_entry", "sequence"),
        ("journal_entry", "prev_hash"),
        ("posting", "balance_after"),
    ):
        op.alter_column(table, column, nullable=True)
    for name, table, timing, condition, message in RULES:
        op.execute(
            f"""CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql
            SET search_path = pg_catalog, pg_temp AS $$
            BEGIN
                IF {condition.format(schema=schema + ".")} THEN
                    RETURN NEW;
                END IF;
                RAISE EXCEPTION '{message}' USING ERRCODE = 'restrict_violation';
            END $$"""
        )
        op.execute(
            f"""CREATE TRIGGER {name} BEFORE {timing} ON {table}
            FOR EACH ROW EXECUTE FUNCTION {name}()"""
        )
    for function in TABLE_FREE_FUNCTIONS:
        op.execute(f"ALTER FUNCTION {function} SET search_path = pg_catalog, pg_temp")
    for table in NEW_IMMUTABLE:
        op.execute(
            f"""CREATE TRIGGER {table}_refuse_change BEFORE UPDATE OR DELETE OR TRUNCATE
            ON {table} FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()"""
        )
    for statement in _roles_statements():
        op.execute(statement)


def _roles_statements() -> list[str]:
    """The owner owns what this revision creates; the worker appends seals and status changes,
    and moves an account's status version with its status."""
    owned = [
        *(f"ALTER TABLE {table} OWNER TO {OWNER};" for table in NEW_IMMUTABLE),
        *(f"ALTER FUNCTION {name}() OWNER TO {OWNER};" for name, *_ in RULES),
    ]
    body = "\n            ".join(owned)
    return [
        f"""DO $$ BEGIN
        IF current_user <> '{OWNER}' THEN
            {body}
        END IF;
    END $$""",
        *(f"GRANT SELECT, INSERT ON {table} TO {WORKER}" for table in NEW_IMMUTABLE),
        f"GRANT UPDATE (status_version) ON account TO {WORKER}",
    ]


def downgrade() -> None:
    """Only while every entry was chained by its writer (none written since this revision):
    entries are never rewritten, and a sealed one has no place of its own to go back to."""
    bind = op.get_bind()
    if bind.exec_driver_sql("SELECT 1 FROM journal_entry WHERE sequence IS NULL").first():
        raise RuntimeError(
            f"cannot downgrade below {revision}: the journal holds entries written since, which "
            "the sealer placed, and journal entries are never rewritten"
        )
    if bind.exec_driver_sql("SELECT 1 FROM account WHERE is_system AND status_version > 0").first():
        raise RuntimeError(f"cannot downgrade below {revision}: a system account changed status")
    chained = _revision_0007()
    if _dialect() == "sqlite":
        for name, *_ in RULES:
            op.execute(f"DROP TRIGGER {name}")
        for table in NEW_IMMUTABLE:
            op.execute(f"DROP TRIGGER {table}_no_update")
            op.execute(f"DROP TRIGGER {table}_no_delete")
    else:
        for table in NEW_IMMUTABLE:
            op.execute(f"DROP TRIGGER {table}_refuse_change ON {table}")
        for name, table, *_ in RULES:
            op.execute(f"DROP TRIGGER {name} ON {table}")
            op.execute(f"DROP FUNCTION {name}()")
        op.execute(f"REVOKE UPDATE (status_version) ON account FROM {WORKER}")
    op.drop_table("account_status_change")
    op.drop_table("journal_seal")
    _restore_system_balances()
    if _dialect() == "sqlite":
        _rebuild_sqlite(
            "account",
            [
                (f", \n\tCONSTRAINT ck_account_{name} CHECK ({check})", "")
                for name, check in ACCOUNT_CHECKS
            ],
        )
        _rebuild_sqlite(
            "journal_entry",
            [
                ("sequence BIGINT,", "sequence BIGINT DEFAULT '0' NOT NULL,"),
                ("prev_hash VARCHAR(64),", "prev_hash VARCHAR(64) DEFAULT '' NOT NULL,"),
            ],
        )
        _rebuild_sqlite(
            "posting", [("balance_after BIGINT,", "balance_after BIGINT DEFAULT '0' NOT NULL,")]
        )
    else:
        for name, _ in ACCOUNT_CHECKS:
            op.execute(f"ALTER TABLE account DROP CONSTRAINT ck_account_{name}")
        for table, column in (
            ("journal_entry", "sequence"),
            ("journal_entry", "prev_hash"),
            ("posting", "balance_after"),
        ):
            op.alter_column(table, column, nullable=False)
    op.execute("ALTER TABLE account DROP COLUMN status_version")
    # Revision 0007's guards of journal_head's one row stayed: its statements make them again.
    if _dialect() == "sqlite":
        op.execute("DROP TRIGGER journal_head_no_delete")
        op.execute("DROP TRIGGER journal_head_no_insert")
    else:
        op.execute("DROP TRIGGER journal_head_refuse_change ON journal_head")
    for statement in chained._rule_statements():
        op.execute(statement)
    if _dialect() == "postgresql":
        for statement in chained._roles_statements("GRANT", "TO"):
            op.execute(statement)


def _restore_system_balances() -> None:
    """Revision 0007's system rows carried their balance: the sum of their postings."""
    op.execute(
        "UPDATE account SET balance = (SELECT COALESCE(SUM(p.amount), 0) FROM posting p"
        " WHERE p.account_id = account.account_id) WHERE is_system"
    )


def _revision_0007() -> ModuleType:
    """Revision 0007, whose rules come back on downgrade."""
    path = Path(__file__).with_name("2026_11_22_0007_journal_chain.py")
    spec = importlib.util.spec_from_file_location("fundsaga_revision_0007", path)
    if spec is None or spec.loader is None:
        raise RuntimeError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _dialect() -> str:
    return op.get_context().dialect.name
