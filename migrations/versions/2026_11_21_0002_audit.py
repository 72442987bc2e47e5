"""audit: the append-only audit_record table, its refusing triggers and the writer role

Revision ID: 2026_11_21_0002
Revises: 2026_11_21_0001
Create Date: 2026-11-21 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "2026_11_21_0002"
down_revision: str | Sequence[str] | None = "2026_11_21_0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

KEY = 255
ROLE = "fundsaga_audit_writer"
REFUSAL = "audit_record is append-only"

SQLITE_TRIGGERS = [
    f"""CREATE TRIGGER audit_record_no_{action.lower()} BEFORE {action} ON audit_record
    BEGIN SELECT RAISE(ABORT, '{REFUSAL}: {action} refused'); END"""
    for action in ("UPDATE", "DELETE")
]

POSTGRES_UPGRADE = [
    f"""CREATE FUNCTION audit_record_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
        RAISE EXCEPTION '{REFUSAL}: % refused', TG_OP USING ERRCODE = 'restrict_violation';
    END $$""",
    # Statement-level, so even a statement that touches no row is refused.
    """CREATE TRIGGER audit_record_refuse_change
    BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_record
    FOR EACH STATEMENT EXECUTE FUNCTION audit_record_refuse_change()""",
    # Roles are cluster-wide: another database (or a concurrent migration) may have made it.
    f"""DO $$ BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{ROLE}') THEN
            CREATE ROLE {ROLE} NOLOGIN;
        END IF;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END $$""",
    f"REVOKE ALL ON audit_record FROM {ROLE}",
    f"GRANT SELECT, INSERT ON audit_record TO {ROLE}",
]

# The role stays: other databases on the server may still grant it their audit_record.
POSTGRES_DOWNGRADE = [
    f"REVOKE ALL ON audit_record FROM {ROLE}",
    "DROP TRIGGER audit_record_refuse_change ON audit_record",
    "DROP FUNCTION audit_record_refuse_change()",
]


def upgrade() -> None:
    op.create_table(
        "audit_record",
        sa.Column("sequence", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("kind", sa.String(KEY), nullable=False),
        sa.Column("saga_id", sa.String(KEY), nullable=False),
        sa.Column("dedupe_key", sa.String(KEY), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("prev_hash", sa.String(64), nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.PrimaryKeyConstraint("sequence", name="pk_audit_record"),
        sa.UniqueConstraint("dedupe_key", name="uq_audit_record_dedupe_key"),
    )
    op.create_index("ix_audit_record_saga_id", "audit_record", ["saga_id"])
    for statement in _by_dialect(sqlite=SQLITE_TRIGGERS, postgresql=POSTGRES_UPGRADE):
        op.execute(statement)


def downgrade() -> None:
    drop_sqlite = [f"DROP TRIGGER audit_record_no_{a}" for a in ("update", "delete")]
    for statement in _by_dialect(sqlite=drop_sqlite, postgresql=POSTGRES_DOWNGRADE):
        op.execute(statement)
    op.drop_index("ix_audit_record_saga_id", table_name="audit_record")
    op.drop_table("audit_record")


def _by_dialect(*, sqlite: list[str], postgresql: list[str]) -> list[str]:
    name = op.get_context().dialect.name
    if name == "sqlite":
        return sqlite
    if name == "postgresql":
        return postgresql
    raise NotImplementedError(f"no audit_record triggers for {name}")
