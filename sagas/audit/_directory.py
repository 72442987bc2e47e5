"""The directory backend: one write-once, read-only JSON file per record."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

from pydantic import JsonValue

from sagas.audit._checkpoint import Checkpoint
from sagas.audit._files import ensure_directory, entry_names, locked, publish, sequence_of
from sagas.audit._keys import AuditKeys, SigningKey
from sagas.audit._record import AuditRecord, check_append, describe_invalid, next_record
from sagas.audit._record import parse_record_line as parse
from sagas.audit._verify import Stored, VerifyResult, verify_chain
from sagas.foundations import ConnectionDroppedError, DatabaseBusyError, HostClock, host_now

APPEND_ATTEMPTS = 100


class DirectoryAuditStore:
    """Records as `<dir>/<sequence:012d>.json`, each created once and never rewritten.

    Records already read are kept in memory (they cannot change without tampering, which
    verify() reads the files to catch), so an append reads only what others appended since.
    Files that cannot be read are left out of find() and records(); verify() names them.
    A directory has no clock of its own: records are stamped by `clock`, the writing host's,
    never before the record they follow.
    """

    def __init__(self, directory: Path, keys: AuditKeys, *, clock: HostClock = host_now) -> None:
        self._directory = directory
        self._keys = keys
        self._clock = clock
        self._lock = threading.Lock()
        self._known: dict[int, AuditRecord] = {}
        self._by_key: dict[str, AuditRecord] = {}

    def append(
        self, *, kind: str, saga_id: str, dedupe_key: str, payload: dict[str, JsonValue]
    ) -> AuditRecord:
        check_append(kind=kind, saga_id=saga_id, dedupe_key=dedupe_key, payload=payload)
        signer = self._keys.require_signer()
        with self._guarded():
            ensure_directory(self._directory)
            with locked(self._directory):
                for _ in range(APPEND_ATTEMPTS):
                    written = self._append_once(signer, kind, saga_id, dedupe_key, payload)
                    if written:
                        return written
        raise DatabaseBusyError(f"audit directory {self._directory}: too many competing writers")

    def find(self, dedupe_key: str) -> AuditRecord | None:
        with self._guarded():
            self._refresh()
            return self._by_key.get(dedupe_key)

    def records(self, *, saga_id: str | None = None) -> list[AuditRecord]:
        with self._guarded():
            self._refresh()
            ordered = [self._known[sequence] for sequence in sorted(self._known)]
        return [r for r in ordered if saga_id is None or r.saga_id == saga_id]

    def head(self) -> AuditRecord | None:
        with self._guarded():
            return self._head()

    def now(self) -> datetime:
        return self._clock()

    def verify(self, checkpoint: Checkpoint | None = None) -> VerifyResult:
        stored: dict[int, Stored] = {}
        strays: list[str] = []
        with self._guarded():
            for name in sorted(entry_names(self._directory)):
                sequence = sequence_of(name)
                if sequence is None or sequence < 1:
                    strays.append(f"{name!r} in the audit directory is not a record")
                else:
                    stored[sequence] = self._readable(name)
        return verify_chain(stored, self._keys.keyring, checkpoint, strays)

    def close_connections(self) -> None:
        with self._lock:
            self._known.clear()
            self._by_key.clear()

    def _append_once(
        self,
        signer: SigningKey,
        kind: str,
        saga_id: str,
        dedupe_key: str,
        payload: dict[str, JsonValue],
    ) -> AuditRecord | None:
        """The record (existing or new); None when another writer took the next number."""
        head = self._head()
        existing = self._by_key.get(dedupe_key)
        if existing:
            return existing
        record = next_record(
            head,
            now=self._clock(),
            kind=kind,
            saga_id=saga_id,
            dedupe_key=dedupe_key,
            payload=payload,
            signer=signer,
        )
        try:
            publish(self._directory, record)
        except FileExistsError:
            return None
        self._remember(record)
        return record

    @contextmanager
    def _guarded(self) -> Iterator[None]:
        with self._lock:
            try:
                yield
            except OSError as exc:
                raise ConnectionDroppedError(
                    f"audit directory {self._directory} unreachable: {exc}"
                ) from exc

    def _head(self) -> AuditRecord | None:
        top = self._refresh()
        if top and top not in self._known:
            raise ValueError(f"audit record {top} cannot be read, so nothing can follow it")
        return self._known.get(top)

    def _refresh(self) -> int:
        """Read the record files not seen yet; the highest sequence number on disk (or 0)."""
        top = 0
        for name in entry_names(self._directory):
            sequence = sequence_of(name) or 0
            top = max(top, sequence)
            if sequence and sequence not in self._known:
                record = self._parse(name)
                if isinstance(record, AuditRecord) and record.sequence == sequence:
                    self._remember(record)
        return top

    def _remember(self, record: AuditRecord) -> None:
        self._known[record.sequence] = record
        self._by_key.setdefault(record.dedupe_key, record)

    def _parse(self, name: str) -> Stored:
        try:
            return parse((self._directory / name).read_bytes())
        except ValueError as exc:
            return describe_invalid(exc)

    def _readable(self, name: str) -> Stored:
        try:
            return self._parse(name)
        except OSError as exc:
            return f"{type(exc).__name__}: {exc.strerror}"
