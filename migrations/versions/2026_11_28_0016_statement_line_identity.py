"""statement lines: kept once per account and identity, not per bank reference; a line without
a reference keeps none; a 0.00 line is kept and marked

A line's identity (sagas/reconcile/_line_identity.py) is its bank reference and occurrence, or
its content and occurrence when the file gives no reference. Lines kept before have the
identity `legacy:` and their bank reference (which may have been derived from the statement's id
and the line's position: nothing tells which).

Revision ID: 2026_11_28_0016
Revises: 2026_11_28_0015
Create Date: 2026-11-28 17:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "2026_11_28_0016"
down_revision: str | Sequence[str] | None = "2026_11_28_0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = (
    "line_id, file_id, position, account, bank_reference, end_to_end_id, direction, kind, "
    "amount_minor, currency, fee_minor, booking_date, value_date, description, action_id"
)
NEW_COLUMNS = "identity, occurrence, zero_amount"


def _table(new: bool) -> str:
    """statement_line as SQLite holds it, before (`new` False) and after this revision."""
    reference = "VARCHAR(64)" if new else "VARCHAR(64) NOT NULL"
    added = (
        "\n\tidentity VARCHAR(80) NOT NULL, \n\toccurrence INTEGER NOT NULL, "
        "\n\tzero_amount BOOLEAN NOT NULL, "
        if new
        else ""
    )
    constraints = (
        "CONSTRAINT uq_statement_line_account_identity UNIQUE (account, identity), "
        "\n\tCONSTRAINT ck_statement_line_direction CHECK (direction IN ('debit', 'credit')), "
        "\n\tCONSTRAINT ck_statement_line_amount_not_negative CHECK (amount_minor >= 0), "
        "\n\tCONSTRAINT ck_statement_line_zero_amount_marked "
        "CHECK (zero_amount = (amount_minor = 0))"
        if new
        else "CONSTRAINT uq_statement_line_account_bank_reference "
        "UNIQUE (account, bank_reference), "
        "\n\tCONSTRAINT ck_statement_line_direction CHECK (direction IN ('debit', 'credit')), "
        "\n\tCONSTRAINT ck_statement_line_amount_positive CHECK (amount_minor > 0)"
    )
    return (
        "CREATE TABLE statement_line (\n\tline_id INTEGER NOT NULL, \n\tfile_id INTEGER NOT "
        "NULL, \n\tposition INTEGER NOT NULL, \n\taccount VARCHAR(64) NOT NULL, "
        f"\n\tbank_reference {reference}, \n\tend_to_end_id VARCHAR(250), "
        "\n\tdirection VARCHAR(8) NOT NULL, \n\tkind VARCHAR(16) NOT NULL, "
        "\n\tamount_minor BIGINT NOT NULL, \n\tcurrency VARCHAR(3) NOT NULL, "
        "\n\tfee_minor BIGINT, \n\tbooking_date DATE NOT NULL, \n\tvalue_date DATE NOT NULL, "
        f"\n\tdescription TEXT NOT NULL, \n\taction_id VARCHAR(120), {added}"
        "\n\tCONSTRAINT pk_statement_line PRIMARY KEY (line_id), "
        "\n\tCONSTRAINT fk_statement_line_file_id_statement_file FOREIGN KEY(file_id) "
        f"REFERENCES statement_file (file_id), \n\t{constraints}\n)"
    )


def _sqlite_rebuild(new: bool, select: str) -> None:
    """The table recreated, its rows copied by `select` from the copy, the index and triggers
    put back (foreign keys checked deferred meanwhile)."""
    bind = op.get_bind()
    attached = (
        bind.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE tbl_name = 'statement_line'"
            " AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, name"
        )
        .scalars()
        .all()
    )
    columns = f"{COLUMNS}, {NEW_COLUMNS}" if new else COLUMNS
    for statement in (
        "PRAGMA defer_foreign_keys = ON",
        "CREATE TEMP TABLE statement_line_0016 AS SELECT * FROM statement_line",
        "DROP TABLE statement_line",
        _table(new),
        f"INSERT INTO statement_line ({columns}) {select} ORDER BY rowid",
        "DROP TABLE statement_line_0016",
        *attached,
    ):
        bind.exec_driver_sql(statement)


def _refuse_downgrade() -> None:
    kept = op.get_bind().exec_driver_sql(
        "SELECT count(*) FROM statement_line WHERE bank_reference IS NULL OR amount_minor = 0"
    )
    if kept.scalar_one():
        raise RuntimeError(
            "statement_line holds lines without a bank reference or of 0.00, which the earlier "
            "schema cannot hold: not downgraded"
        )


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        legacy = f"SELECT {COLUMNS}, 'legacy:' || bank_reference, 1, 0 FROM statement_line_0016"
        _sqlite_rebuild(True, legacy)
        return
    op.add_column("statement_line", sa.Column("identity", sa.String(80), nullable=True))
    op.add_column(
        "statement_line",
        sa.Column("occurrence", sa.Integer(), nullable=False, server_default="1"),
    )
    op.add_column(
        "statement_line",
        sa.Column("zero_amount", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    # Lines are append-only: the trigger is lifted only for this one fill of the new column.
    op.execute("ALTER TABLE statement_line DISABLE TRIGGER statement_line_refuse_change")
    op.execute("UPDATE statement_line SET identity = 'legacy:' || bank_reference")
    op.execute("ALTER TABLE statement_line ENABLE TRIGGER statement_line_refuse_change")
    op.alter_column("statement_line", "identity", nullable=False)
    op.alter_column("statement_line", "occurrence", server_default=None)
    op.alter_column("statement_line", "zero_amount", server_default=None)
    op.alter_column("statement_line", "bank_reference", nullable=True)
    op.drop_constraint("uq_statement_line_account_bank_reference", "statement_line")
    op.create_unique_constraint(
        "uq_statement_line_account_identity", "statement_line", ["account", "identity"]
    )
    op.drop_constraint("ck_statement_line_amount_positive", "statement_line")
    op.create_check_constraint(
        "ck_statement_line_amount_not_negative", "statement_line", "amount_minor >= 0"
    )
    op.create_check_constraint(
        "ck_statement_line_zero_amount_marked",
        "statement_line",
        "zero_amount = (amount_minor = 0)",
    )


def downgrade() -> None:
    _refuse_downgrade()
    if op.get_bind().dialect.name == "sqlite":
        _sqlite_rebuild(False, f"SELECT {COLUMNS} FROM statement_line_0016")
        return
    op.drop_constraint("ck_statement_line_zero_amount_marked", "statement_line")
    op.drop_constraint("ck_statement_line_amount_not_negative", "statement_line")
    op.create_check_constraint(
        "ck_statement_line_amount_positive", "statement_line", "amount_minor > 0"
    )
    op.drop_constraint("uq_statement_line_account_identity", "statement_line")
    op.create_unique_constraint(
        "uq_statement_line_account_bank_reference",
        "statement_line",
        ["account", "bank_reference"],
    )
    op.alter_column("statement_line", "bank_reference", nullable=False)
    op.drop_column("statement_line", "zero_amount")
    op.drop_column("statement_line", "occurrence")
    op.drop_column("statement_line", "identity")
