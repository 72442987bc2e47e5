"""Translation of database faults into fundsaga's transient errors, so activities retry them.

    SQLite "database is locked" / busy          -> DatabaseBusyError
    PostgreSQL 40P01 deadlock_detected          -> DeadlockError
    PostgreSQL 40001 serialization_failure      -> SerializationFailureError
    PostgreSQL 55P03 lock_not_available         -> DatabaseBusyError  (lock_timeout)
    PostgreSQL 57014 query_canceled             -> DatabaseBusyError  (statement_timeout)
    PostgreSQL 53300, pool exhausted            -> DatabaseBusyError
    PostgreSQL 25P03 idle_in_transaction_session_timeout
                                                -> ConnectionDroppedError (the server closed it)
    lost or refused connections (08xxx, 57P0x)  -> ConnectionDroppedError

Integrity errors and anything unrecognised pass through unchanged.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy.exc import DBAPIError, IntegrityError, OperationalError
from sqlalchemy.exc import TimeoutError as PoolTimeoutError

from sagas.foundations._errors import (
    ConnectionDroppedError,
    DatabaseBusyError,
    DeadlockError,
    SerializationFailureError,
    TransientError,
)

_BY_SQLSTATE: dict[str, type[TransientError]] = {
    "40P01": DeadlockError,
    "40001": SerializationFailureError,
    "55P03": DatabaseBusyError,
    "57014": DatabaseBusyError,
    "53300": DatabaseBusyError,
    "25P03": ConnectionDroppedError,
    "57P01": ConnectionDroppedError,
    "57P02": ConnectionDroppedError,
    "57P03": ConnectionDroppedError,
}
_SQLITE_BUSY = ("database is locked", "database is busy", "database table is locked")


@contextmanager
def translate_db_errors() -> Iterator[None]:
    """Re-raise transient database faults as the matching TransientError subclass."""
    try:
        yield
    except IntegrityError:
        raise
    except DBAPIError as exc:
        transient = transient_error_for(exc)
        if transient is None:
            raise
        raise transient(str(exc.orig)) from exc
    except PoolTimeoutError as exc:
        raise DatabaseBusyError(f"no database connection free: {exc}") from exc


def transient_error_for(exc: DBAPIError) -> type[TransientError] | None:
    """The transient error class for a DBAPI failure, or None when it is not transient."""
    if exc.connection_invalidated:
        return ConnectionDroppedError
    sqlstate = getattr(exc.orig, "sqlstate", None)
    if isinstance(sqlstate, str):
        return _by_sqlstate(sqlstate)
    message = str(exc.orig).lower()
    if any(text in message for text in _SQLITE_BUSY):
        return DatabaseBusyError
    if isinstance(exc, OperationalError) and _is_postgres(exc):
        return ConnectionDroppedError
    return None


def _by_sqlstate(sqlstate: str) -> type[TransientError] | None:
    if sqlstate.startswith("08"):
        return ConnectionDroppedError
    return _BY_SQLSTATE.get(sqlstate)


def _is_postgres(exc: DBAPIError) -> bool:
    return type(exc.orig).__module__.startswith("psycopg")
