"""saga_snapshot: whether the saga's pivot had started, and the inquiries it made before the step

Revision ID: 2026_11_22_0010
Revises: 2026_11_22_0009
Create Date: 2026-11-22 18:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "2026_11_22_0010"
down_revision: str | Sequence[str] | None = "2026_11_22_0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("saga_snapshot") as table:
        table.add_column(
            sa.Column("forward_only", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        table.add_column(sa.Column("inquiries", sa.Text(), nullable=False, server_default="[]"))


def downgrade() -> None:
    with op.batch_alter_table("saga_snapshot") as table:
        table.drop_column("inquiries")
        table.drop_column("forward_only")
