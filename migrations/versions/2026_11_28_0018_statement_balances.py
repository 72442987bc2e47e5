"""statement balances: each statement file keeps its opening and closing booked balances

Reconciliation checks that opening + lines = closing, that an account's statements chain
(closing of one = opening of the next) and proves the closing balance against the ledger's rail
movements (the proof of cash). Signed minor units; NULL when the file states none (a camt.054
notification, a CSV export).

Revision ID: 2026_11_28_0018
Revises: 2026_11_28_0017
Create Date: 2026-11-28 17:40:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "2026_11_28_0018"
down_revision: str | Sequence[str] | None = "2026_11_28_0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

COLUMNS = (
    ("opening_minor", sa.BigInteger()),
    ("opening_date", sa.Date()),
    ("closing_minor", sa.BigInteger()),
    ("closing_date", sa.Date()),
)


def upgrade() -> None:
    # Plain ADD COLUMN (no batch copy on SQLite): the table's append-only triggers stay.
    for column, kind in COLUMNS:
        op.add_column("statement_file", sa.Column(column, kind, nullable=True))


def downgrade() -> None:
    for column, _ in reversed(COLUMNS):
        op.drop_column("statement_file", column)
