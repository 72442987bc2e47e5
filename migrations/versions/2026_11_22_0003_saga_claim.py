"""saga_claim: the launch fence, one row per saga id naming the run chain that may take effects

Revision ID: 2026_11_22_0003
Revises: 2026_11_21_0002
Create Date: 2026-11-22 12:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "2026_11_22_0003"
down_revision: str | Sequence[str] | None = "2026_11_21_0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEY = 255


def upgrade() -> None:
    op.create_table(
        "saga_claim",
        sa.Column("saga_id", sa.String(KEY), nullable=False),
        sa.Column("run_chain", sa.String(KEY), nullable=False),
        sa.Column("saga_type", sa.String(KEY), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("saga_id", name="pk_saga_claim"),
    )


def downgrade() -> None:
    op.drop_table("saga_claim")
