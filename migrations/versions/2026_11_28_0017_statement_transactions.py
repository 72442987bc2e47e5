"""statement transactions: the transactions of a booked entry (a batch holds several), each
matched on its own

A batch booking or a batch return is one statement line with several transactions; each
transaction names its end-to-end id, its amount and, returned, the rail's reason code, and is
matched to at most one journal entry. Both tables are append-only, as the lines and matches.

Revision ID: 2026_11_28_0017
Revises: 2026_11_28_0016
Create Date: 2026-11-28 17:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from sagas.foundations import DATABASE_OWNER_ROLE as OWNER
from sagas.foundations import DATABASE_WORKER_ROLE as WORKER
from sagas.foundations import UtcDateTime

revision: str = "2026_11_28_0017"
down_revision: str | Sequence[str] | None = "2026_11_28_0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ID = sa.BigInteger().with_variant(sa.Integer(), "sqlite")
TABLES = ("statement_transaction", "rail_transaction_match")
SEQUENCE = "statement_transaction_transaction_id_seq"


def upgrade() -> None:
    _create_tables()
    if op.get_bind().dialect.name == "sqlite":
        for table in TABLES:
            for action in ("UPDATE", "DELETE"):
                op.execute(
                    f"""CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table}
                    BEGIN SELECT RAISE(ABORT, '{table} is immutable: {action} refused'); END"""
                )
        return
    for table in TABLES:
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
    op.execute(f"GRANT USAGE ON SEQUENCE {SEQUENCE} TO {WORKER}")


def _create_tables() -> None:
    op.create_table(
        "statement_transaction",
        sa.Column("transaction_id", ID, autoincrement=True, nullable=False),
        sa.Column("line_id", ID, nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("end_to_end_id", sa.String(250), nullable=True),
        sa.Column("amount_minor", sa.BigInteger(), nullable=True),
        sa.Column("return_reason", sa.String(35), nullable=True),
        sa.Column("action_id", sa.String(120), nullable=True),
        sa.PrimaryKeyConstraint("transaction_id", name="pk_statement_transaction"),
        sa.ForeignKeyConstraint(
            ["line_id"],
            ["statement_line.line_id"],
            name="fk_statement_transaction_line_id_statement_line",
        ),
        sa.UniqueConstraint(
            "line_id", "position", name="uq_statement_transaction_line_id_position"
        ),
    )
    op.create_index(
        "ix_statement_transaction_end_to_end_id", "statement_transaction", ["end_to_end_id"]
    )
    op.create_table(
        "rail_transaction_match",
        sa.Column("transaction_id", ID, nullable=False),
        sa.Column("entry_id", ID, nullable=False),
        sa.Column("method", sa.String(16), nullable=False),
        sa.Column("matched_at", UtcDateTime(), nullable=False),
        sa.Column("action_id", sa.String(120), nullable=True),
        sa.PrimaryKeyConstraint("transaction_id", name="pk_rail_transaction_match"),
        sa.ForeignKeyConstraint(
            ["transaction_id"],
            ["statement_transaction.transaction_id"],
            name="fk_rail_transaction_match_transaction_id_statement_transaction",
        ),
        sa.UniqueConstraint("entry_id", name="uq_rail_transaction_match_entry_id"),
    )


def downgrade() -> None:
    for table in reversed(TABLES):
        op.drop_table(table)
