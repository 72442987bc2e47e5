"""server time: rows take their time from the database, never from the writer

Journal entries, holds, saga claims and audit records (an anchor store's too, when it is a
table) carry a time their writer stamps, and a signature or hash covers it for entries, holds
and records, so the database cannot put its own time in their place: a trigger refuses a row
whose time is not the database's. On PostgreSQL the time must lie between the start of the
writing transaction (and at most an hour back) and a minute past the server's clock now
(`clock_timestamp()`; the minute is for a server clock stepped back while a chain's next time
was clamped forward to its predecessor's); each column also defaults to the server's clock.
SQLite has no server: its clock is the writing host's, and a time more than a minute from it
either way is refused.

On PostgreSQL every trigger function runs with a fixed search_path, as revision 0011's do.

Revision ID: 2026_11_28_0013
Revises: 2026_11_26_0012
Create Date: 2026-11-28 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

from alembic import op

from sagas.foundations import DATABASE_OWNER_ROLE as OWNER

revision: str = "2026_11_28_0013"
down_revision: str | Sequence[str] | None = "2026_11_26_0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

AHEAD = "1 minute"
"""How far past the server's clock a time may be (PostgreSQL), and either way on SQLite."""
TRANSACTION_AGE = "1 hour"
"""How far back a PostgreSQL time may be, however early its transaction began."""
SQLITE_SLACK_DAYS = "(60.0 / 86400)"
"""AHEAD in days, as SQLite's julianday() counts."""
STAMPED = (
    ("journal_entry", "created_at"),
    ("hold", "created_at"),
    ("saga_claim", "claimed_at"),
    ("audit_record", "recorded_at"),
)
"""Each table's time written with the row; hold.closed_at is checked when it is set."""
TIMINGS = (
    ("journal_entry_server_time", "journal_entry", "INSERT", ("created_at",)),
    ("hold_server_time", "hold", "INSERT", ("created_at", "closed_at")),
    ("hold_closed_server_time", "hold", "UPDATE", ("closed_at",)),
    ("saga_claim_server_time", "saga_claim", "INSERT", ("claimed_at",)),
    ("audit_record_server_time", "audit_record", "INSERT", ("recorded_at",)),
)
"""(trigger, table, timing, the columns whose time it checks)."""


def _message(table: str, columns: Sequence[str]) -> str:
    named = " and ".join(f"{table}.{column}" for column in columns)
    return (
        f"{named} must be the database''s time: a time further from its clock than the "
        "writing transaction allows is refused"
    )


def _postgresql_condition(column: str, timing: str) -> str:
    fits = (
        f"NEW.{column} >= transaction_timestamp()"
        f" AND NEW.{column} >= clock_timestamp() - interval '{TRANSACTION_AGE}'"
        f" AND NEW.{column} <= clock_timestamp() + interval '{AHEAD}'"
    )
    if timing == "UPDATE":
        return f"(NEW.{column} IS NOT DISTINCT FROM OLD.{column} OR ({fits}))"
    if column == "closed_at":
        return f"(NEW.{column} IS NULL OR ({fits}))"
    return f"({fits})"


def _sqlite_condition(column: str, timing: str) -> str:
    fits = (
        f"abs(julianday(NEW.{column}) - julianday('now')) <= {SQLITE_SLACK_DAYS}"
        f" AND NEW.{column} IS NOT NULL"
    )
    if timing == "UPDATE":
        return f"(NEW.{column} IS OLD.{column} OR ({fits}))"
    if column == "closed_at":
        return f"(NEW.{column} IS NULL OR ({fits}))"
    return f"({fits})"


def upgrade() -> None:
    if op.get_context().dialect.name == "sqlite":
        for name, table, timing, columns in TIMINGS:
            condition = " AND ".join(_sqlite_condition(c, timing) for c in columns)
            # IS NOT 1, not NOT: a condition that is NULL (a time that does not parse) refuses.
            op.execute(
                f"""CREATE TRIGGER {name} BEFORE {timing} ON {table}
                WHEN ({condition}) IS NOT 1
                BEGIN SELECT RAISE(ABORT, '{_message(table, columns)}'); END"""
            )
        return
    for table, column in STAMPED:
        op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} SET DEFAULT clock_timestamp()")
    for name, table, timing, columns in TIMINGS:
        condition = " AND ".join(_postgresql_condition(c, timing) for c in columns)
        op.execute(
            f"""CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql
            SET search_path = pg_catalog, pg_temp AS $$
            BEGIN
                IF {condition} THEN
                    RETURN NEW;
                END IF;
                RAISE EXCEPTION '{_message(table, columns)}' USING ERRCODE = 'restrict_violation';
            END $$"""
        )
        op.execute(
            f"""CREATE TRIGGER {name} BEFORE {timing} ON {table}
            FOR EACH ROW EXECUTE FUNCTION {name}()"""
        )
    owned = "\n            ".join(
        f"ALTER FUNCTION {name}() OWNER TO {OWNER};" for name, *_ in TIMINGS
    )
    op.execute(
        f"""DO $$ BEGIN
        IF current_user <> '{OWNER}' THEN
            {owned}
        END IF;
    END $$"""
    )


def downgrade() -> None:
    sqlite = op.get_context().dialect.name == "sqlite"
    for name, table, *_ in TIMINGS:
        if sqlite:
            op.execute(f"DROP TRIGGER {name}")
        else:
            op.execute(f"DROP TRIGGER {name} ON {table}")
            op.execute(f"DROP FUNCTION {name}()")
    if not sqlite:
        for table, column in STAMPED:
            op.execute(f"ALTER TABLE {table} ALTER COLUMN {column} DROP DEFAULT")
