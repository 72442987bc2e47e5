"""audit signature: every audit record names its signing key and carries its Ed25519 signature

Revision ID: 2026_11_22_0004
Revises: 2026_11_22_0003
Create Date: 2026-11-22 13:00:00

Records written before this revision have neither and fail verification, as unsigned records
should. Plain ADD COLUMN with a constant default: no row is rewritten, so the append-only
triggers of audit_record stay as they are.
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "2026_11_22_0004"
down_revision: str | Sequence[str] | None = "2026_11_22_0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEY_ID = 16
SIGNATURE = 88  # base64 of a 64-byte Ed25519 signature


def upgrade() -> None:
    op.add_column(
        "audit_record", sa.Column("key_id", sa.String(KEY_ID), nullable=False, server_default="")
    )
    op.add_column(
        "audit_record",
        sa.Column("signature", sa.String(SIGNATURE), nullable=False, server_default=""),
    )


def downgrade() -> None:
    # Not batch mode: rebuilding the table on SQLite would drop its append-only triggers.
    op.execute("ALTER TABLE audit_record DROP COLUMN signature")
    op.execute("ALTER TABLE audit_record DROP COLUMN key_id")
