"""reconciliation: statement files and lines, matches and breaks

Statement files keep their bytes with their SHA-256; files, lines and matches are append-only
(triggers refuse UPDATE and DELETE, as on the journal). A break's status moves by the
reconciliation and by operators, each change also an audit record.

Revision ID: 2026_11_26_0012
Revises: 2026_11_26_0011
Create Date: 2026-11-26 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from sagas.foundations import DATABASE_OWNER_ROLE as OWNER
from sagas.foundations import DATABASE_WORKER_ROLE as WORKER
from sagas.foundations import UtcDateTime

revision: str = "2026_11_26_0012"
down_revision: str | Sequence[str] | None = "2026_11_26_0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
APPEND_ONLY = ("statement_file", "statement_line", "rail_match")
TABLES = (*APPEND_ONLY, "reconciliation_break")
BREAK_CHANGES = (
    "status",
    "note",
    "evidence",
    "explained_by",
    "resolved_by",
    "adjustment_entry_id",
    "updated_at",
    "version",
)
"""What the worker and operators change on a break: never what was found."""
SEQUENCES = (
    "statement_file_file_id_seq",
    "statement_line_line_id_seq",
    "reconciliation_break_break_id_seq",
)


def upgrade() -> None:
    _create_tables()
    if op.get_bind().dialect.name == "sqlite":
        for table in APPEND_ONLY:
            for action in ("UPDATE", "DELETE"):
                op.execute(
                    f"""CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table}
                    BEGIN SELECT RAISE(ABORT, '{table} is immutable: {action} refused'); END"""
                )
        return
    for table in APPEND_ONLY:
        op.execute(
            f"""CREATE TRIGGER {table}_refuse_change BEFORE UPDATE OR DELETE OR TRUNCATE
            ON {table} FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()"""
        )
    owned = "\n            ".join(f"ALTER TABLE {table} OWNER TO {OWNER};" for table in TABLES)
    op.execute(
        f"""DO $$ BEGIN
        IF current_user <> '{OWNER}' THEN
            {owned}
        END IF;
    END $$"""
    )
    op.execute(f"GRANT SELECT, INSERT ON {', '.join(TABLES)} TO {WORKER}")
    op.execute(f"GRANT UPDATE ({', '.join(BREAK_CHANGES)}) ON reconciliation_break TO {WORKER}")
    op.execute(f"GRANT USAGE ON SEQUENCE {', '.join(SEQUENCES)} TO {WORKER}")


def _create_tables() -> None:
    op.create_table(
        "statement_file",
        sa.Column("file_id", ID, autoincrement=True, nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("statement_id", sa.String(64), nullable=False),
        sa.Column("account", sa.String(64), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("period_start", UtcDateTime(), nullable=True),
        sa.Column("period_end", UtcDateTime(), nullable=True),
        sa.Column("line_count", sa.Integer(), nullable=False),
        sa.Column("content", sa.LargeBinary(), nullable=False),
        sa.Column("imported_at", UtcDateTime(), nullable=False),
        sa.Column("imported_by", sa.String(120), nullable=False),
        sa.PrimaryKeyConstraint("file_id", name="pk_statement_file"),
        sa.UniqueConstraint("sha256", name="uq_statement_file_sha256"),
    )
    op.create_table(
        "statement_line",
        sa.Column("line_id", ID, autoincrement=True, nullable=False),
        sa.Column("file_id", ID, nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("account", sa.String(64), nullable=False),
        sa.Column("bank_reference", sa.String(64), nullable=False),
        sa.Column("end_to_end_id", sa.String(250), nullable=True),
        sa.Column("direction", sa.String(8), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("amount_minor", sa.BigInteger(), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("fee_minor", sa.BigInteger(), nullable=True),
        sa.Column("booking_date", sa.Date(), nullable=False),
        sa.Column("value_date", sa.Date(), nullable=False),
        sa.Column("description", sa.Text(), nullable=False),
        sa.PrimaryKeyConstraint("line_id", name="pk_statement_line"),
        sa.ForeignKeyConstraint(
            ["file_id"], ["statement_file.file_id"], name="fk_statement_line_file_id_statement_file"
        ),
        sa.UniqueConstraint(
            "account", "bank_reference", name="uq_statement_line_account_bank_reference"
        ),
        sa.CheckConstraint("direction IN ('debit', 'credit')", name="ck_statement_line_direction"),
        sa.CheckConstraint("amount_minor > 0", name="ck_statement_line_amount_positive"),
    )
    op.create_index("ix_statement_line_end_to_end_id", "statement_line", ["end_to_end_id"])
    op.create_table(
        "rail_match",
        sa.Column("line_id", ID, nullable=False),
        sa.Column("entry_id", ID, nullable=False),
        sa.Column("method", sa.String(16), nullable=False),
        sa.Column("matched_at", UtcDateTime(), nullable=False),
        sa.PrimaryKeyConstraint("line_id", name="pk_rail_match"),
        sa.ForeignKeyConstraint(
            ["line_id"], ["statement_line.line_id"], name="fk_rail_match_line_id_statement_line"
        ),
        sa.UniqueConstraint("entry_id", name="uq_rail_match_entry_id"),
    )
    op.create_table(
        "reconciliation_break",
        sa.Column("break_id", ID, autoincrement=True, nullable=False),
        sa.Column("break_key", sa.String(80), nullable=False),
        sa.Column("kind", sa.String(24), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("line_id", ID, nullable=True),
        sa.Column("entry_id", ID, nullable=True),
        sa.Column("reference", sa.String(250), nullable=True),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("ledger_minor", sa.BigInteger(), nullable=True),
        sa.Column("statement_minor", sa.BigInteger(), nullable=True),
        sa.Column("detail", sa.Text(), nullable=False),
        sa.Column("opened_at", UtcDateTime(), nullable=False),
        sa.Column("updated_at", UtcDateTime(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("evidence", sa.Text(), nullable=False),
        sa.Column("explained_by", sa.String(120), nullable=True),
        sa.Column("resolved_by", sa.String(250), nullable=True),
        sa.Column("adjustment_entry_id", ID, nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("break_id", name="pk_reconciliation_break"),
        sa.UniqueConstraint("break_key", name="uq_reconciliation_break_break_key"),
        sa.ForeignKeyConstraint(
            ["line_id"],
            ["statement_line.line_id"],
            name="fk_reconciliation_break_line_id_statement_line",
        ),
        sa.CheckConstraint(
            "status IN ('open', 'explained', 'resolved', 'matched')",
            name="ck_reconciliation_break_status",
        ),
    )


def downgrade() -> None:
    for table in reversed(TABLES):
        op.drop_table(table)
