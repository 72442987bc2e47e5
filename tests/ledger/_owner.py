"""What a database owner can do that the ledger's writers cannot: switch the guards off.

Used by the attack tests to rewrite the journal as a rogue administrator would, then show that
`verify_ledger` still finds it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import Connection, Engine, text

GUARDED = (
    "account",
    "account_status_change",
    "journal_entry",
    "journal_seal",
    "posting",
    "hold",
    "journal_head",
)


@contextmanager
def guards_off(engine: Engine) -> Iterator[Connection]:
    """A transaction in which the ledger's triggers do not fire (dropped, or disabled)."""
    with engine.begin() as connection:
        if connection.dialect.name == "sqlite":
            names = connection.execute(
                text("SELECT name FROM sqlite_master WHERE type = 'trigger'")
            ).scalars()
            for name in list(names):
                connection.execute(text(f'DROP TRIGGER "{name}"'))
        else:
            for table in GUARDED:
                connection.execute(text(f"ALTER TABLE {table} DISABLE TRIGGER USER"))
        yield connection
        if connection.dialect.name != "sqlite":
            for table in GUARDED:
                connection.execute(text(f"ALTER TABLE {table} ENABLE TRIGGER USER"))
