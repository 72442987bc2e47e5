"""bank statements: a statement file holds one statement or several, each a row of its own; each
statement line names the statement that delivered it

A camt file may hold several `Stmt` (`Rpt`, `Ntfctn`), an MT940 file several :20: blocks. Each
statement keeps its header and balances in `bank_statement` (append-only, stamped with the
action that imported it), and its balances are checked, chained and proven one by one. The
header columns of `statement_file` stay, holding its first statement's.

Each file kept before this revision holds one statement: it becomes that file's statement, under
the file's own id (so the keys of the balance breaks opened before, which name files, name the
same statements), and each of its lines names it.

Revision ID: 2026_11_28_0019
Revises: 2026_11_28_0018
Create Date: 2026-11-28 19:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from sagas.foundations import DATABASE_OWNER_ROLE as OWNER
from sagas.foundations import DATABASE_WORKER_ROLE as WORKER
from sagas.foundations import UtcDateTime

revision: str = "2026_11_28_0019"
down_revision: str | Sequence[str] | None = "2026_11_28_0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TABLE = "bank_statement"
SEQUENCE = "bank_statement_bank_statement_id_seq"
HEADER = (
    "statement_id, account, currency, period_start, period_end, opening_minor, opening_date, "
    "closing_minor, closing_date, line_count, action_id"
)
FOREIGN_KEY = "fk_statement_line_bank_statement_id_bank_statement"
INDEX = "ix_statement_line_bank_statement_id"
# How the column and its reference read in SQLite's statement_line, after the last column and
# after the file's reference.
SQLITE_COLUMN = ("\n\tzero_amount BOOLEAN NOT NULL, ", "\n\tbank_statement_id INTEGER NOT NULL, ")
SQLITE_REFERENCE = (
    "REFERENCES statement_file (file_id), ",
    f"\n\tCONSTRAINT {FOREIGN_KEY} FOREIGN KEY(bank_statement_id) "
    "REFERENCES bank_statement (bank_statement_id), ",
)


def upgrade() -> None:
    _create_table()
    op.execute(
        f"INSERT INTO {TABLE} (bank_statement_id, file_id, position, {HEADER}) "
        f"SELECT file_id, file_id, 0, {HEADER} FROM statement_file ORDER BY file_id"
    )
    if op.get_bind().dialect.name == "sqlite":
        _append_only_sqlite()
        _sqlite_rebuild(True)
        op.create_index(INDEX, "statement_line", ["bank_statement_id"])
        return
    _append_only_postgres()
    op.execute(
        f"SELECT setval('{SEQUENCE}', COALESCE((SELECT max(bank_statement_id) FROM {TABLE}), 0)"
        " + 1, false)"
    )
    op.add_column("statement_line", sa.Column("bank_statement_id", ID, nullable=True))
    # Lines are append-only: the trigger is lifted only for this one fill of the new column.
    op.execute("ALTER TABLE statement_line DISABLE TRIGGER statement_line_refuse_change")
    op.execute("UPDATE statement_line SET bank_statement_id = file_id")
    op.execute("ALTER TABLE statement_line ENABLE TRIGGER statement_line_refuse_change")
    op.alter_column("statement_line", "bank_statement_id", nullable=False)
    op.create_foreign_key(
        FOREIGN_KEY, "statement_line", TABLE, ["bank_statement_id"], ["bank_statement_id"]
    )
    op.create_index(INDEX, "statement_line", ["bank_statement_id"])


def _create_table() -> None:
    op.create_table(
        TABLE,
        sa.Column("bank_statement_id", ID, autoincrement=True, nullable=False),
        sa.Column("file_id", ID, nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("statement_id", sa.String(64), nullable=False),
        sa.Column("account", sa.String(64), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("period_start", UtcDateTime(), nullable=True),
        sa.Column("period_end", UtcDateTime(), nullable=True),
        sa.Column("copy_indicator", sa.String(4), nullable=True),
        sa.Column("opening_minor", sa.BigInteger(), nullable=True),
        sa.Column("opening_date", sa.Date(), nullable=True),
        sa.Column("closing_minor", sa.BigInteger(), nullable=True),
        sa.Column("closing_date", sa.Date(), nullable=True),
        sa.Column("line_count", sa.Integer(), nullable=False),
        sa.Column("action_id", sa.String(120), nullable=True),
        sa.PrimaryKeyConstraint("bank_statement_id", name="pk_bank_statement"),
        sa.ForeignKeyConstraint(
            ["file_id"], ["statement_file.file_id"], name="fk_bank_statement_file_id_statement_file"
        ),
        sa.UniqueConstraint("file_id", "position", name="uq_bank_statement_file_id_position"),
    )


def _append_only_sqlite() -> None:
    for action in ("UPDATE", "DELETE"):
        op.execute(
            f"""CREATE TRIGGER {TABLE}_no_{action.lower()} BEFORE {action} ON {TABLE}
            BEGIN SELECT RAISE(ABORT, '{TABLE} is immutable: {action} refused'); END"""
        )


def _append_only_postgres() -> None:
    op.execute(
        f"""CREATE TRIGGER {TABLE}_refuse_change BEFORE UPDATE OR DELETE OR TRUNCATE
        ON {TABLE} FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()"""
    )
    op.execute(
        f"""DO $$ BEGIN
        IF current_user <> '{OWNER}' THEN
            ALTER TABLE {TABLE} OWNER TO {OWNER};
        END IF;
    END $$"""
    )
    op.execute(f"GRANT SELECT, INSERT ON {TABLE} TO {WORKER}")
    op.execute(f"GRANT USAGE ON SEQUENCE {SEQUENCE} TO {WORKER}")


def _sqlite_rebuild(new: bool) -> None:
    """statement_line recreated from its own definition with (`new`) or without the column, its
    rows copied, its indexes and triggers put back (foreign keys checked deferred meanwhile)."""
    bind = op.get_bind()
    kept = (
        bind.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE tbl_name = 'statement_line'"
            " AND type IN ('index', 'trigger') AND sql IS NOT NULL AND name <> ?"
            " ORDER BY type, name",
            (INDEX,),
        )
        .scalars()
        .all()
    )
    table = bind.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'statement_line'"
    ).scalar_one()
    columns = ", ".join(
        name
        for (_, name, *_) in bind.exec_driver_sql("PRAGMA table_info(statement_line)")
        if name != "bank_statement_id"
    )
    values = f"{columns}, file_id" if new else columns
    columns = f"{columns}, bank_statement_id" if new else columns
    for statement in (
        "PRAGMA defer_foreign_keys = ON",
        "CREATE TEMP TABLE statement_line_0019 AS SELECT * FROM statement_line",
        "DROP TABLE statement_line",
        _edited(table, new),
        f"INSERT INTO statement_line ({columns}) SELECT {values} FROM statement_line_0019"
        " ORDER BY rowid",
        "DROP TABLE statement_line_0019",
        *kept,
    ):
        bind.exec_driver_sql(statement)


def _edited(table: str, new: bool) -> str:
    """statement_line's CREATE TABLE with the column and its reference added (`new`) or
    taken out again."""
    for anchor, added in (SQLITE_COLUMN, SQLITE_REFERENCE):
        before, after = (anchor, anchor + added) if new else (anchor + added, anchor)
        if table.count(before) != 1:
            raise RuntimeError(f"statement_line is not as revision {down_revision} left it")
        table = table.replace(before, after)
    return table


def downgrade() -> None:
    # A file of one statement holds it in its own header columns; one of several cannot.
    several = op.get_bind().exec_driver_sql(f"SELECT count(*) FROM {TABLE} WHERE position > 0")
    if several.scalar_one():
        raise RuntimeError(
            "statement_file holds files of several statements, which the earlier schema cannot "
            "hold: not downgraded"
        )
    op.drop_index(INDEX, "statement_line")
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_rebuild(False)
    else:
        op.drop_constraint(FOREIGN_KEY, "statement_line", type_="foreignkey")
        op.drop_column("statement_line", "bank_statement_id")
    op.drop_table(TABLE)
