"""Choosing the audit store from FUNDSAGA_AUDIT_STORE."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import make_url
from sqlalchemy.exc import ArgumentError

from sagas.audit._directory import DirectoryAuditStore
from sagas.audit._keys import AuditKeys
from sagas.audit._store import AuditStore
from sagas.audit._table import TableAuditStore
from sagas.foundations import DatabaseTimeouts, HostClock, InvalidRequestError, host_now

SETTING = "FUNDSAGA_AUDIT_STORE"
_EXPECTED = "expected dir:PATH, db:URL, sqlite:///PATH or postgresql://..."


def open_audit_store(
    spec: str,
    keys: AuditKeys,
    *,
    clock: HostClock = host_now,
    timeouts: DatabaseTimeouts | None = None,
) -> AuditStore:
    """`dir:PATH` (files), `db:URL` or a bare sqlite/postgresql URL (a migrated database), whose
    sessions wait at most `timeouts` (None: a worker's).

    Records are stamped by a PostgreSQL store's server clock; a directory or SQLite file, which
    have no server, use `clock`, the host's.

    Nothing is touched until the store is used, so an unreachable store shows as a
    TransientError on the first call rather than here.
    """
    if spec.startswith("dir:"):
        path = spec.removeprefix("dir:")
        if not path:
            raise InvalidRequestError(SETTING, f"no directory in {spec!r}: {_EXPECTED}")
        return DirectoryAuditStore(Path(path), keys, clock=clock)
    url = spec.removeprefix("db:")
    try:
        backend = make_url(url).get_backend_name()
    except ArgumentError as exc:
        raise InvalidRequestError(SETTING, f"{spec!r} is not a store: {_EXPECTED}") from exc
    if backend not in ("sqlite", "postgresql"):
        raise InvalidRequestError(SETTING, f"unsupported database {backend!r}: {_EXPECTED}")
    return TableAuditStore(url, keys, clock=clock, timeouts=timeouts)
