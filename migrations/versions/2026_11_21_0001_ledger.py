"""ledger: accounts, journal entries, postings, holds and saga snapshots

Revision ID: 2026_11_21_0001
Revises:
Create Date: 2026-11-21 13:40:00
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

import sqlalchemy as sa
from alembic import op

revision: str = "2026_11_21_0001"
down_revision: str | Sequence[str] | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEY = 255


def _id() -> sa.types.TypeEngine[int]:
    return sa.BigInteger().with_variant(sa.Integer(), "sqlite")


def _at(name: str, *, nullable: bool = False) -> sa.Column[datetime]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=nullable)


def upgrade() -> None:
    op.create_table(
        "account",
        sa.Column("account_id", sa.String(64), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("is_system", sa.Boolean(), nullable=False),
        sa.Column("balance", sa.BigInteger(), nullable=False),
        sa.Column("held", sa.BigInteger(), nullable=False),
        sa.Column("overdraft", sa.BigInteger(), nullable=False),
        _at("created_at"),
        _at("updated_at"),
        sa.PrimaryKeyConstraint("account_id", name="pk_account"),
        sa.CheckConstraint("status IN ('active', 'frozen', 'closed')", name="ck_account_status"),
        sa.CheckConstraint("held >= 0", name="ck_account_held_not_negative"),
        sa.CheckConstraint("overdraft >= 0", name="ck_account_overdraft_not_negative"),
        sa.CheckConstraint(
            "is_system OR balance - held + overdraft >= 0", name="ck_account_available"
        ),
    )
    op.create_table(
        "journal_entry",
        sa.Column("entry_id", _id(), autoincrement=True, nullable=False),
        sa.Column("idempotency_key", sa.String(KEY), nullable=False),
        sa.Column("saga_id", sa.String(KEY), nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("reverses_entry_id", _id(), nullable=True),
        _at("created_at"),
        sa.PrimaryKeyConstraint("entry_id", name="pk_journal_entry"),
        sa.UniqueConstraint("idempotency_key", name="uq_journal_entry_idempotency_key"),
        sa.UniqueConstraint("reverses_entry_id", name="uq_journal_entry_reverses_entry_id"),
        sa.ForeignKeyConstraint(
            ["reverses_entry_id"],
            ["journal_entry.entry_id"],
            name="fk_journal_entry_reverses_entry_id_journal_entry",
        ),
        sa.CheckConstraint(
            "kind IN ('funding', 'transfer', 'capture', 'reversal', 'void_marker', 'settlement')",
            name="ck_journal_entry_kind",
        ),
        sa.CheckConstraint(
            "(kind = 'reversal') = (reverses_entry_id IS NOT NULL)",
            name="ck_journal_entry_reversal_link",
        ),
    )
    op.create_index("ix_journal_entry_saga_id", "journal_entry", ["saga_id"])
    op.create_table(
        "posting",
        sa.Column("posting_id", _id(), autoincrement=True, nullable=False),
        sa.Column("entry_id", _id(), nullable=False),
        sa.Column("account_id", sa.String(64), nullable=False),
        sa.Column("currency", sa.String(3), nullable=False),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("posting_id", name="pk_posting"),
        sa.ForeignKeyConstraint(
            ["entry_id"], ["journal_entry.entry_id"], name="fk_posting_entry_id_journal_entry"
        ),
        sa.ForeignKeyConstraint(
            ["account_id"], ["account.account_id"], name="fk_posting_account_id_account"
        ),
        sa.CheckConstraint("amount <> 0", name="ck_posting_amount_not_zero"),
    )
    op.create_index("ix_posting_entry_id", "posting", ["entry_id"])
    op.create_index("ix_posting_account_id", "posting", ["account_id"])
    op.create_table(
        "hold",
        sa.Column("hold_id", _id(), autoincrement=True, nullable=False),
        sa.Column("hold_key", sa.String(KEY), nullable=False),
        sa.Column("account_id", sa.String(64), nullable=True),
        sa.Column("currency", sa.String(3), nullable=True),
        sa.Column("amount", sa.BigInteger(), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("saga_id", sa.String(KEY), nullable=False),
        _at("created_at"),
        _at("closed_at", nullable=True),
        sa.PrimaryKeyConstraint("hold_id", name="pk_hold"),
        sa.UniqueConstraint("hold_key", name="uq_hold_hold_key"),
        sa.ForeignKeyConstraint(
            ["account_id"], ["account.account_id"], name="fk_hold_account_id_account"
        ),
        sa.CheckConstraint("status IN ('active', 'posted', 'voided')", name="ck_hold_status"),
        sa.CheckConstraint(
            "(account_id IS NOT NULL AND currency IS NOT NULL AND amount > 0)"
            " OR (account_id IS NULL AND currency IS NULL AND amount = 0 AND status = 'voided')",
            name="ck_hold_tombstone",
        ),
    )
    op.create_index("ix_hold_account_id", "hold", ["account_id"])
    op.create_index("ix_hold_saga_id", "hold", ["saga_id"])
    op.create_table(
        "saga_snapshot",
        sa.Column("saga_id", sa.String(KEY), nullable=False),
        sa.Column("step_index", sa.Integer(), nullable=False),
        sa.Column("saga_type", sa.String(KEY), nullable=False),
        sa.Column("step_name", sa.String(KEY), nullable=False),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("data", sa.Text(), nullable=False),
        sa.Column("compensation_stack", sa.Text(), nullable=False),
        sa.Column("attempt", sa.Integer(), nullable=False),
        _at("recorded_at"),
        sa.PrimaryKeyConstraint("saga_id", "step_index", name="pk_saga_snapshot"),
    )


def downgrade() -> None:
    op.drop_table("saga_snapshot")
    op.drop_index("ix_hold_saga_id", table_name="hold")
    op.drop_index("ix_hold_account_id", table_name="hold")
    op.drop_table("hold")
    op.drop_index("ix_posting_account_id", table_name="posting")
    op.drop_index("ix_posting_entry_id", table_name="posting")
    op.drop_table("posting")
    op.drop_index("ix_journal_entry_saga_id", table_name="journal_entry")
    op.drop_table("journal_entry")
    op.drop_table("account")
