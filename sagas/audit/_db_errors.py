"""Database faults of the audit table as TransientErrors, so an audit write retries."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import OperationalError

from sagas.foundations import ConnectionDroppedError, translate_db_errors

_SQLITE_UNREACHABLE = ("unable to open database file", "disk i/o error")


@contextmanager
def translate_store_errors() -> Iterator[None]:
    """The ledger's translation, plus an SQLite file that cannot be reached."""
    try:
        with translate_db_errors():
            yield
    except OperationalError as exc:
        if any(text in str(exc.orig).lower() for text in _SQLITE_UNREACHABLE):
            raise ConnectionDroppedError(f"audit database unreachable: {exc.orig}") from exc
        raise
