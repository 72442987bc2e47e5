"""declared entry kinds: journal_entry.kind takes any short lowercase word, not only the
ledger's own six, so that saga types can post entries of the kinds they declare

On SQLite a CHECK constraint changes only with its table: journal_entry is rebuilt under its own
name, and its rows, indexes and triggers (those of revisions 0005 and 0007, as the database
holds them) are put back. Foreign keys are checked deferred meanwhile: dropping the table
orphans every posting and reversal, and putting the rows back meets them again. Downgrade is
refused while the journal holds an entry of a declared kind, since entries are never deleted.

Revision ID: 2026_11_22_0008
Revises: 2026_11_22_0007
Create Date: 2026-11-22 16:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "2026_11_22_0008"
down_revision: str | Sequence[str] | None = "2026_11_22_0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

NAME = "ck_journal_entry_kind"
BUILT_IN_KINDS = ("funding", "transfer", "capture", "reversal", "void_marker", "settlement")
BUILT_IN = "kind IN ({})".format(", ".join(f"'{kind}'" for kind in BUILT_IN_KINDS))
WORD = (
    "length(kind) BETWEEN 1 AND 16 AND ltrim(kind, 'abcdefghijklmnopqrstuvwxyz0123456789_-') = ''"
)
COPY = "journal_entry_0008"


def upgrade() -> None:
    _replace_check(BUILT_IN, WORD)


def downgrade() -> None:
    declared = _declared_kinds()
    if declared:
        raise RuntimeError(
            f"cannot downgrade below {revision}: the journal holds entries of the declared "
            f"kinds {', '.join(declared)}, which the earlier schema refuses, and journal "
            "entries are never deleted"
        )
    _replace_check(WORD, BUILT_IN)


def _declared_kinds() -> list[str]:
    query = sa.text("SELECT DISTINCT kind FROM journal_entry WHERE NOT (" + BUILT_IN + ")")
    return sorted(op.get_bind().execute(query).scalars())


def _replace_check(old: str, new: str) -> None:
    if op.get_context().dialect.name == "sqlite":
        _rebuild_on_sqlite(old, new)
        return
    op.execute(
        f"ALTER TABLE journal_entry DROP CONSTRAINT {NAME}, ADD CONSTRAINT {NAME} CHECK ({new})"
    )


def _rebuild_on_sqlite(old: str, new: str) -> None:
    bind = op.get_bind()
    table = bind.exec_driver_sql(
        "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'journal_entry'"
    ).scalar_one()
    clause = f"CONSTRAINT {NAME} CHECK ({old})"
    if clause not in table:
        raise RuntimeError(f"journal_entry has no {clause}: its schema was changed by hand")
    attached = (
        bind.exec_driver_sql(
            "SELECT sql FROM sqlite_master WHERE tbl_name = 'journal_entry'"
            " AND type IN ('index', 'trigger') AND sql IS NOT NULL ORDER BY type, name"
        )
        .scalars()
        .all()
    )
    statements = [
        "PRAGMA defer_foreign_keys = ON",
        f"CREATE TEMP TABLE {COPY} AS SELECT * FROM journal_entry",
        "DROP TABLE journal_entry",
        table.replace(clause, f"CONSTRAINT {NAME} CHECK ({new})"),
        # Before the triggers are back: the rows are already chained, not appended anew.
        f"INSERT INTO journal_entry SELECT * FROM {COPY} ORDER BY entry_id",
        f"DROP TABLE {COPY}",
        *attached,
    ]
    for statement in statements:
        bind.exec_driver_sql(statement)
