"""journal refusals: journal entries and postings refuse UPDATE and DELETE; a hold changes only
by its one transition (active to posted or voided) and is never deleted

Revision ID: 2026_11_22_0005
Revises: 2026_11_22_0004
Create Date: 2026-11-22 13:50:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

revision: str = "2026_11_22_0005"
down_revision: str | Sequence[str] | None = "2026_11_22_0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

IMMUTABLE = ("journal_entry", "posting")
HOLD_TRANSITION = (
    "OLD.status = 'active' AND NEW.status IN ('posted', 'voided')"
    " AND NEW.hold_key = OLD.hold_key AND NEW.account_id IS OLD.account_id"
    " AND NEW.currency IS OLD.currency AND NEW.amount = OLD.amount"
    " AND NEW.saga_id = OLD.saga_id AND NEW.created_at = OLD.created_at"
)


def _sqlite_upgrade() -> list[str]:
    statements = [
        f"""CREATE TRIGGER {table}_no_{action.lower()} BEFORE {action} ON {table}
        BEGIN SELECT RAISE(ABORT, '{table} is immutable: {action} refused'); END"""
        for table in IMMUTABLE
        for action in ("UPDATE", "DELETE")
    ]
    statements += [
        f"""CREATE TRIGGER hold_only_closes BEFORE UPDATE ON hold
        WHEN NOT ({HOLD_TRANSITION})
        BEGIN SELECT RAISE(ABORT, 'hold changes only from active to posted or voided'); END""",
        """CREATE TRIGGER hold_no_delete BEFORE DELETE ON hold
        BEGIN SELECT RAISE(ABORT, 'hold is never deleted: DELETE refused'); END""",
    ]
    return statements


def _postgres_upgrade() -> list[str]:
    hold_transition = HOLD_TRANSITION.replace(" IS OLD.", " IS NOT DISTINCT FROM OLD.")
    statements = [
        """CREATE FUNCTION ledger_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '% is immutable: % refused', TG_TABLE_NAME, TG_OP
                USING ERRCODE = 'restrict_violation';
        END $$""",
        f"""CREATE FUNCTION hold_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'UPDATE' AND ({hold_transition}) THEN
                RETURN NEW;
            END IF;
            RAISE EXCEPTION 'hold changes only from active to posted or voided: % refused', TG_OP
                USING ERRCODE = 'restrict_violation';
        END $$""",
        """CREATE TRIGGER hold_refuse_change BEFORE UPDATE OR DELETE ON hold
        FOR EACH ROW EXECUTE FUNCTION hold_refuse_change()""",
    ]
    statements += [
        f"""CREATE TRIGGER {table}_refuse_change BEFORE UPDATE OR DELETE OR TRUNCATE ON {table}
        FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()"""
        for table in IMMUTABLE
    ]
    return statements


def upgrade() -> None:
    for statement in _by_dialect(sqlite=_sqlite_upgrade(), postgresql=_postgres_upgrade()):
        op.execute(statement)


def downgrade() -> None:
    sqlite = [
        *(f"DROP TRIGGER {t}_no_{a}" for t in IMMUTABLE for a in ("update", "delete")),
        "DROP TRIGGER hold_only_closes",
        "DROP TRIGGER hold_no_delete",
    ]
    postgresql = [
        *(f"DROP TRIGGER {t}_refuse_change ON {t}" for t in IMMUTABLE),
        "DROP TRIGGER hold_refuse_change ON hold",
        "DROP FUNCTION hold_refuse_change()",
        "DROP FUNCTION ledger_refuse_change()",
    ]
    for statement in _by_dialect(sqlite=sqlite, postgresql=postgresql):
        op.execute(statement)


def _by_dialect(*, sqlite: list[str], postgresql: list[str]) -> list[str]:
    name = op.get_context().dialect.name
    if name == "sqlite":
        return sqlite
    if name == "postgresql":
        return postgresql
    raise NotImplementedError(f"no ledger triggers for {name}")
