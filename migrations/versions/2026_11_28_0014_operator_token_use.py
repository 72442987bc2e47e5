"""operator_token_use: every operator token spent on an action, once, deployment-wide

The identity activity records a token's (issuer, jti) when its action is taken; the primary key
refuses a second use anywhere. Append-only: triggers refuse UPDATE and DELETE (and TRUNCATE on
PostgreSQL), and the worker role may only INSERT and SELECT.

Revision ID: 2026_11_28_0014
Revises: 2026_11_28_0013
Create Date: 2026-11-28 16:30:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from sagas.foundations import DATABASE_OWNER_ROLE as OWNER
from sagas.foundations import DATABASE_WORKER_ROLE as WORKER
from sagas.foundations import UtcDateTime

revision: str = "2026_11_28_0014"
down_revision: str | Sequence[str] | None = "2026_11_28_0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLE = "operator_token_use"


def upgrade() -> None:
    op.create_table(
        TABLE,
        sa.Column("issuer", sa.String(255), nullable=False),
        sa.Column("token_id", sa.String(200), nullable=False),
        sa.Column("subject", sa.String(255), nullable=False),
        sa.Column("workflow_id", sa.String(1000), nullable=False),
        sa.Column("action", sa.String(64), nullable=False),
        sa.Column("used_by", sa.String(1000), nullable=False),
        sa.Column(
            "used_at", UtcDateTime(), server_default=sa.func.current_timestamp(), nullable=False
        ),
        sa.PrimaryKeyConstraint("issuer", "token_id", name=f"pk_{TABLE}"),
    )
    if op.get_bind().dialect.name == "sqlite":
        for action in ("UPDATE", "DELETE"):
            op.execute(
                f"""CREATE TRIGGER {TABLE}_no_{action.lower()} BEFORE {action} ON {TABLE}
                BEGIN SELECT RAISE(ABORT, '{TABLE} is immutable: {action} refused'); END"""
            )
        return
    op.execute(
        f"""CREATE TRIGGER {TABLE}_refuse_change BEFORE UPDATE OR DELETE OR TRUNCATE
        ON {TABLE} FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()"""
    )
    op.execute(
        f"""DO $$ BEGIN
        IF current_user <> '{OWNER}' THEN
            ALTER TABLE {TABLE} OWNER TO {OWNER};
        END IF;
    END $$"""
    )
    op.execute(f"GRANT SELECT, INSERT ON {TABLE} TO {WORKER}")


def downgrade() -> None:
    op.drop_table(TABLE)
