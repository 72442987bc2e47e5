"""snapshot retry specs: a saga's first snapshot records the retry specs it runs with

Revision ID: 2026_11_22_0009
Revises: 2026_11_22_0008
Create Date: 2026-11-22 18:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "2026_11_22_0009"
down_revision: str | Sequence[str] | None = "2026_11_22_0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("saga_snapshot", sa.Column("retry_specs", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("saga_snapshot") as batch:
        batch.drop_column("retry_specs")
