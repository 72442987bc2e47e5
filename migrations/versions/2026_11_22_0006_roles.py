"""roles: fundsaga_owner owns the tables; fundsaga_worker may do only what the application does

Revision ID: 2026_11_22_0006
Revises: 2026_11_22_0005
Create Date: 2026-11-22 15:00:00

PostgreSQL only (SQLite has no roles). Runs as a superuser, or as fundsaga_owner once the roles
exist. Downgrade takes back the worker's grants; the roles, the worker's membership of the
audit writer role (all cluster-wide) and the owner's ownership stay.
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from sagas.foundations import DATABASE_OWNER_ROLE, DATABASE_WORKER_ROLE

revision: str = "2026_11_22_0006"
down_revision: str | Sequence[str] | None = "2026_11_22_0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OWNER = DATABASE_OWNER_ROLE
WORKER = DATABASE_WORKER_ROLE
AUDIT_WRITER = "fundsaga_audit_writer"
"""Migration 2026_11_21_0002's role: the audit store sets it for each of its transactions."""

OWNED_TABLES = (
    "account",
    "journal_entry",
    "posting",
    "hold",
    "saga_snapshot",
    "saga_claim",
    "audit_record",
    "alembic_version",
)
"""A table's serial sequences and indexes change owner with it."""
TRIGGER_FUNCTIONS = (
    "ledger_refuse_change()",
    "hold_refuse_change()",
    "audit_record_refuse_change()",
)
WORKER_TABLES = {
    "journal_entry": "SELECT, INSERT",
    "posting": "SELECT, INSERT",
    "audit_record": "SELECT, INSERT",
    "saga_claim": "SELECT, INSERT",
    # Cached balances and held amounts move with every entry; freeze, unfreeze and close.
    "account": "SELECT, INSERT, UPDATE (balance, held, status, updated_at)",
    # A hold closes once: posted by its capture or voided by its compensation.
    "hold": "SELECT, INSERT, UPDATE (status, closed_at)",
    # A retried step keeps its first snapshot and raises its attempt.
    "saga_snapshot": "SELECT, INSERT, UPDATE (attempt)",
    "alembic_version": "SELECT",
}
WORKER_SEQUENCES = ("journal_entry_entry_id_seq", "posting_posting_id_seq", "hold_hold_id_seq")


def upgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        return
    op.execute(_create_role(OWNER))
    op.execute(_create_role(WORKER))
    op.execute(_hand_over_to_owner())
    for statement in _worker_privileges("GRANT", "TO"):
        op.execute(statement)
    op.execute(_worker_may_set_audit_writer())


def downgrade() -> None:
    if op.get_context().dialect.name != "postgresql":
        return
    for statement in _worker_privileges("REVOKE", "FROM"):
        op.execute(statement)


def _create_role(role: str) -> str:
    # Roles are cluster-wide: another database's migration may be creating it right now.
    return f"""DO $$ BEGIN
        IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{role}') THEN
            CREATE ROLE {role} LOGIN;
        END IF;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END $$"""


def _hand_over_to_owner() -> str:
    statements = [
        *(f"ALTER TABLE {table} OWNER TO {OWNER};" for table in OWNED_TABLES),
        *(f"ALTER FUNCTION {function} OWNER TO {OWNER};" for function in TRIGGER_FUNCTIONS),
        # So that later migrations can run as the owner in a database a superuser created.
        f"EXECUTE format('GRANT CREATE ON SCHEMA %I TO {OWNER}', current_schema());",
    ]
    body = "\n            ".join(statements)
    return f"""DO $$ BEGIN
        IF current_user <> '{OWNER}' THEN
            {body}
        END IF;
    END $$"""


def _worker_privileges(verb: str, preposition: str) -> list[str]:
    on_database = f"{verb} CONNECT ON DATABASE %I {preposition} {WORKER}"
    on_schema = f"{verb} USAGE ON SCHEMA %I {preposition} {WORKER}"
    return [
        f"DO $$ BEGIN EXECUTE format('{on_database}', current_database()); END $$",
        f"DO $$ BEGIN EXECUTE format('{on_schema}', current_schema()); END $$",
        *(
            f"{verb} {privileges} ON {table} {preposition} {WORKER}"
            for table, privileges in WORKER_TABLES.items()
        ),
        f"{verb} USAGE ON SEQUENCE {', '.join(WORKER_SEQUENCES)} {preposition} {WORKER}",
    ]


def _worker_may_set_audit_writer() -> str:
    hint = f"a superuser runs once: GRANT {AUDIT_WRITER} TO {WORKER}"
    return f"""DO $$ BEGIN
        IF NOT pg_has_role('{WORKER}', '{AUDIT_WRITER}', 'MEMBER') THEN
            GRANT {AUDIT_WRITER} TO {WORKER};
        END IF;
    EXCEPTION
        WHEN unique_violation THEN NULL;
        WHEN insufficient_privilege THEN
            RAISE EXCEPTION '{WORKER} must be a member of {AUDIT_WRITER}, and % cannot grant it',
                current_user USING HINT = '{hint}';
    END $$"""
