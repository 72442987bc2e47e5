"""The table backend: audit_record in SQLite or PostgreSQL, append-only by triggers."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Any

from pydantic import JsonValue
from sqlalchemy import Connection, Engine, Row, func, insert, select
from sqlalchemy.exc import IntegrityError

from sagas.audit._checkpoint import Checkpoint
from sagas.audit._db_errors import translate_store_errors
from sagas.audit._keys import AuditKeys, SigningKey
from sagas.audit._record import (
    AuditRecord,
    check_append,
    describe_invalid,
    next_record,
)
from sagas.audit._table_model import WRITER_ROLE, AuditRow
from sagas.audit._verify import Stored, VerifyResult, verify_chain
from sagas.foundations import (
    ConnectionDroppedError,
    DatabaseBusyError,
    DatabaseTimeouts,
    HostClock,
    canonical_json,
    database_now,
    host_now,
    make_engine,
)

CHAIN_LOCK_KEY = int.from_bytes(b"fundsaga", "big")
"""The PostgreSQL advisory lock every append holds while it extends the chain."""
APPEND_ATTEMPTS = 5
_TABLE = AuditRow.__table__
_COLUMNS = tuple(_TABLE.c)


class TableAuditStore:
    """Audit records as rows of audit_record; the database must already be migrated.

    Rows that cannot be read are left out of find() and records(); verify() names them.
    Records are stamped with the database's time, read under the chain's lock (on SQLite, which
    has no server, `clock`: the host's); a trigger refuses a record whose time is not the
    database's (on SQLite, further than a minute from the host's clock), so an anchor store in
    a table has its server's times too.
    """

    def __init__(
        self,
        url: str,
        keys: AuditKeys,
        *,
        clock: HostClock = host_now,
        timeouts: DatabaseTimeouts | None = None,
    ) -> None:
        self._url = url
        self._timeouts = timeouts
        self._keys = keys
        self._clock = clock
        self._engine: Engine | None = None
        self._engine_lock = threading.Lock()

    def append(
        self, *, kind: str, saga_id: str, dedupe_key: str, payload: dict[str, JsonValue]
    ) -> AuditRecord:
        check_append(kind=kind, saga_id=saga_id, dedupe_key=dedupe_key, payload=payload)
        signer = self._keys.require_signer()
        for _ in range(APPEND_ATTEMPTS):
            try:
                with self._transaction() as connection:
                    return _append(
                        connection, signer, self._clock, kind, saga_id, dedupe_key, payload
                    )
            except IntegrityError:
                # Only a writer that bypassed the chain lock can get here; look again.
                existing = self.find(dedupe_key)
                if existing:
                    return existing
        raise DatabaseBusyError("audit_record: could not extend the chain; try again")

    def find(self, dedupe_key: str) -> AuditRecord | None:
        with self._transaction() as connection:
            return _find(connection, dedupe_key)

    def records(self, *, saga_id: str | None = None) -> list[AuditRecord]:
        query = select(*_COLUMNS).order_by(_TABLE.c.sequence)
        if saga_id is not None:
            query = query.where(_TABLE.c.saga_id == saga_id)
        with self._transaction() as connection:
            rows = list(connection.execute(query))
        return [r for r in map(_readable, rows) if isinstance(r, AuditRecord)]

    def head(self) -> AuditRecord | None:
        with self._transaction() as connection:
            return _head(connection)

    def now(self) -> datetime:
        with self._transaction() as connection:
            return database_now(connection, self._clock)

    def verify(self, checkpoint: Checkpoint | None = None) -> VerifyResult:
        with self._transaction() as connection:
            rows = list(connection.execute(select(*_COLUMNS)))
        stored: dict[int, Stored] = {}
        strays: list[str] = []
        for row in rows:
            if row.sequence < 1:
                strays.append(f"a row has sequence number {row.sequence}, before the chain")
            else:
                stored[row.sequence] = _readable(row)
        return verify_chain(stored, self._keys.keyring, checkpoint, strays)

    def close_connections(self) -> None:
        with self._engine_lock:
            if self._engine is not None:
                self._engine.dispose()

    @contextmanager
    def _transaction(self) -> Iterator[Connection]:
        with translate_store_errors(), self._connect().begin() as connection:
            if connection.dialect.name == "postgresql":
                connection.exec_driver_sql(f"SET LOCAL ROLE {WRITER_ROLE}")
            yield connection

    def _connect(self) -> Engine:
        with self._engine_lock:
            if self._engine is None:
                try:
                    self._engine = make_engine(self._url, timeouts=self._timeouts)
                except OSError as exc:
                    raise ConnectionDroppedError(f"audit database unreachable: {exc}") from exc
            return self._engine


def _append(
    connection: Connection,
    signer: SigningKey,
    clock: HostClock,
    kind: str,
    saga_id: str,
    dedupe_key: str,
    payload: dict[str, JsonValue],
) -> AuditRecord:
    # SQLite transactions already begin IMMEDIATE, which serializes writers.
    if connection.dialect.name == "postgresql":
        connection.execute(select(func.pg_advisory_xact_lock(CHAIN_LOCK_KEY)))
    existing = _find(connection, dedupe_key)
    if existing:
        return existing
    record = next_record(
        _head(connection),
        now=database_now(connection, clock),
        kind=kind,
        saga_id=saga_id,
        dedupe_key=dedupe_key,
        payload=payload,
        signer=signer,
    )
    connection.execute(insert(AuditRow).values(_row(record)))
    return record


def _find(connection: Connection, dedupe_key: str) -> AuditRecord | None:
    query = select(*_COLUMNS).where(_TABLE.c.dedupe_key == dedupe_key)
    row = connection.execute(query).first()
    record = _readable(row) if row else None
    return record if isinstance(record, AuditRecord) else None


def _head(connection: Connection) -> AuditRecord | None:
    query = select(*_COLUMNS).order_by(_TABLE.c.sequence.desc()).limit(1)
    row = connection.execute(query).first()
    if row is None:
        return None
    head = _readable(row)
    if isinstance(head, str):
        raise ValueError(f"audit record {row.sequence} cannot be read, so nothing can follow it")
    return head


def _row(record: AuditRecord) -> dict[str, object]:
    return {**record.model_dump(), "payload": canonical_json(record.payload)}


def _record(row: Row[Any]) -> AuditRecord:
    """The record a row holds; ValueError when its payload is not the canonical JSON."""
    fields = dict(row._mapping)
    try:
        payload = json.loads(fields["payload"])
    except ValueError as exc:
        raise ValueError(f"payload is not JSON ({exc})") from exc
    if not isinstance(payload, dict) or canonical_json(payload) != fields["payload"]:
        raise ValueError("payload is not canonical JSON")
    return AuditRecord.model_validate({**fields, "payload": payload})


def _readable(row: Row[Any]) -> Stored:
    try:
        return _record(row)
    except ValueError as exc:
        return describe_invalid(exc)
