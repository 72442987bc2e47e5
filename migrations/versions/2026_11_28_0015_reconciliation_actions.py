"""reconciliation actions: each statement file, line, match and break names the operator action
that wrote it

The worker writes these rows inside an operator's action workflow; `ledger verify` finds the
action's audit record by this id and compares its counts with the rows, so a row written
straight into the database (with no action, or an action whose record counts fewer) is a
finding.

Revision ID: 2026_11_28_0015
Revises: 2026_11_28_0014
Create Date: 2026-11-28 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from sagas.foundations import DATABASE_WORKER_ROLE as WORKER

revision: str = "2026_11_28_0015"
down_revision: str | Sequence[str] | None = "2026_11_28_0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

ACTION_ID_LENGTH = 120
COLUMNS = (
    ("statement_file", "action_id"),
    ("statement_line", "action_id"),
    ("rail_match", "action_id"),
    ("reconciliation_break", "action_id"),
    ("reconciliation_break", "closed_by_action"),
)


def upgrade() -> None:
    for table, column in COLUMNS:
        op.add_column(table, sa.Column(column, sa.String(ACTION_ID_LENGTH), nullable=True))
    if op.get_bind().dialect.name != "sqlite":
        op.execute(f"GRANT UPDATE (closed_by_action) ON reconciliation_break TO {WORKER}")


def downgrade() -> None:
    if op.get_bind().dialect.name != "sqlite":
        op.execute(f"REVOKE UPDATE (closed_by_action) ON reconciliation_break FROM {WORKER}")
    for table, column in reversed(COLUMNS):
        op.drop_column(table, column)
