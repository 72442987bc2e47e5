"""Tampering with what a store holds: raw rows or raw files, behind the store's back.

Every mutation works on a snapshot of the stored entries by slot (the sequence number
the entry is filed under) and is then written back as the whole storage content, so
each case is independent of the ones before it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path
from random import Random
from typing import Any, Generic, Protocol, TypeVar

from sqlalchemy import Engine, delete, insert, select, text

from sagas.audit import GENESIS_HASH, AuditRecord, SigningKey
from sagas.audit._files import READ_ONLY, record_name, sequence_of
from sagas.audit._record import record_line, seal
from sagas.audit._table import _row
from sagas.audit._table_model import AuditRow
from sagas.foundations import make_engine

Data = TypeVar("Data")
Row = tuple[Any, ...]
CHARACTERS = '0123456789abcdefXYZ{}[]:,"\\ é€'
FIGURES = {"flip": 100, "delete": 35, "swap": 35, "insert": 35, "truncate": 35}
"""How many mutations of each kind a tamper run makes."""


class Storage(Protocol[Data]):
    def read(self) -> dict[int, Data]: ...
    def write(self, items: dict[int, Data]) -> None: ...
    def encode(self, record: AuditRecord) -> Data: ...
    def garbage(self, data: Data) -> Data:
        """The entry made unreadable as a record."""
        ...

    def flip(self, data: Data, slot: int, rng: Random) -> tuple[int, Data]:
        """A change of one byte (a file) or of one column value (a row), maybe its slot."""
        ...

    def close_connections(self) -> None: ...


class DirectoryStorage:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def read(self) -> dict[int, bytes]:
        files = {sequence_of(p.name): p.read_bytes() for p in self.directory.glob("*.json")}
        return {s: data for s, data in files.items() if s is not None}

    def write(self, items: dict[int, bytes]) -> None:
        for path in self.directory.glob("*.json"):
            path.unlink()
        for sequence, data in items.items():
            path = self.directory / record_name(sequence)
            path.write_bytes(data)
            os.chmod(path, READ_ONLY)

    def encode(self, record: AuditRecord) -> bytes:
        return record_line(record)

    def garbage(self, data: bytes) -> bytes:
        return b"garbage\n"

    def close_connections(self) -> None:
        pass

    def flip(self, data: bytes, slot: int, rng: Random) -> tuple[int, bytes]:
        at = rng.randrange(len(data))
        flipped = data[at] ^ rng.randrange(1, 256)
        return slot, data[:at] + bytes([flipped]) + data[at + 1 :]


_TABLE = AuditRow.__table__
_NAMES = [c.name for c in _TABLE.c]


class TableStorage:
    """The audit_record rows, rewritten as the table owner with the triggers off."""

    def __init__(self, url: str) -> None:
        self.engine: Engine = make_engine(url)
        with self.engine.connect() as connection:
            self.sqlite_triggers = (
                [
                    sql
                    for (sql,) in connection.execute(
                        text("SELECT sql FROM sqlite_master WHERE type = 'trigger'")
                    )
                ]
                if connection.dialect.name == "sqlite"
                else []
            )

    def read(self) -> dict[int, Row]:
        with self.engine.connect() as connection:
            return {row[0]: tuple(row[1:]) for row in connection.execute(select(*_TABLE.c))}

    def write(self, items: dict[int, Row]) -> None:
        rows = [dict(zip(_NAMES, (slot, *data), strict=True)) for slot, data in items.items()]
        with self.engine.begin() as connection:
            self._triggers(connection, enabled=False)
            connection.execute(delete(AuditRow))
            if rows:
                connection.execute(insert(AuditRow), rows)
            self._triggers(connection, enabled=True)

    def _triggers(self, connection: Any, *, enabled: bool) -> None:
        if connection.dialect.name == "postgresql":
            state = "ENABLE" if enabled else "DISABLE"
            connection.exec_driver_sql(f"ALTER TABLE audit_record {state} TRIGGER USER")
            return
        for sql in self.sqlite_triggers:
            name = sql.split()[2]
            connection.exec_driver_sql(sql if enabled else f"DROP TRIGGER {name}")

    def encode(self, record: AuditRecord) -> Row:
        values = _row(record)
        return tuple(values[name] for name in _NAMES[1:])

    def garbage(self, data: Row) -> Row:
        payload = _NAMES.index("payload") - 1
        return (*data[:payload], "not json", *data[payload + 1 :])

    def flip(self, data: Row, slot: int, rng: Random) -> tuple[int, Row]:
        column = rng.randrange(len(_NAMES))
        if column == 0:
            return slot ^ (1 << rng.randrange(5, 62)), data
        values = list(data)
        values[column - 1] = _changed(values[column - 1], rng)
        return slot, tuple(values)

    def close_connections(self) -> None:
        self.engine.dispose()


def _changed(value: Any, rng: Random) -> Any:
    if not isinstance(value, str):
        step = rng.choice([timedelta(microseconds=1), timedelta(seconds=1), timedelta(days=1)])
        return value + rng.choice([-1, 1]) * step
    at = rng.randrange(len(value))
    replacement = rng.choice([c for c in CHARACTERS if c != value[at]])
    return value[:at] + replacement + value[at + 1 :]


@dataclass(frozen=True)
class Mutation(Generic[Data]):
    kind: str
    description: str
    items: dict[int, Data]
    first_bad_sequence: int
    with_checkpoint: bool


def mutations(
    storage: Storage[Data], chain: list[AuditRecord], rng: Random
) -> Iterator[Mutation[Data]]:
    """FIGURES mutations of `chain` as stored, each with the first sequence it breaks."""
    original = storage.read()
    makers: dict[str, Callable[[], Mutation[Data]]] = {
        "flip": lambda: _flip(storage, original, rng),
        "delete": lambda: _delete(original, rng),
        "swap": lambda: _swap(original, rng),
        "insert": lambda: _insert(storage, original, chain, rng),
        "truncate": lambda: _truncate(original, rng),
    }
    for kind, count in FIGURES.items():
        for _ in range(count):
            yield makers[kind]()


def _flip(storage: Storage[Data], items: dict[int, Data], rng: Random) -> Mutation[Data]:
    k = rng.randint(1, len(items))
    slot, data = storage.flip(items[k], k, rng)
    changed = {s: d for s, d in items.items() if s != k} | {slot: data}
    return Mutation("flip", f"changed record {k}", changed, k, rng.random() < 0.5)


def _delete(items: dict[int, Data], rng: Random) -> Mutation[Data]:
    k = rng.randint(1, len(items) - 1)
    kept = {s: d for s, d in items.items() if s != k}
    return Mutation("delete", f"deleted record {k}", kept, k, rng.random() < 0.5)


MALLORY = SigningKey.generate()
"""An insider's own key: any record they forge is signed, but not by a trusted key."""


def _swap(items: dict[int, Data], rng: Random) -> Mutation[Data]:
    k = rng.randint(1, len(items) - 1)
    swapped = items | {k: items[k + 1], k + 1: items[k]}
    return Mutation("swap", f"swapped records {k} and {k + 1}", swapped, k, rng.random() < 0.5)


def _insert(
    storage: Storage[Data], items: dict[int, Data], chain: list[AuditRecord], rng: Random
) -> Mutation[Data]:
    k = rng.randint(1, len(items))
    forged = seal(
        sequence=k,
        recorded_at=chain[k - 1].recorded_at,
        kind="operator_resolve",
        saga_id=f"forged-{k}",
        dedupe_key=f"forged-{k}",
        payload={"operator": "mallory", "note": "nothing to see"},
        prev_hash=chain[k - 2].hash if k > 1 else GENESIS_HASH,
        signer=MALLORY,
    )
    shifted = {(s + 1 if s >= k else s): d for s, d in items.items()}
    inserted = shifted | {k: storage.encode(forged)}
    return Mutation("insert", f"inserted a forged record {k}", inserted, k, rng.random() < 0.5)


def _truncate(items: dict[int, Data], rng: Random) -> Mutation[Data]:
    m = rng.randint(0, len(items) - 1)
    kept = {s: d for s, d in items.items() if s <= m}
    return Mutation("truncate", f"truncated after record {m}", kept, m + 1, True)


def storage_for(spec: str) -> Storage[Any]:
    """Raw write access to the store behind an audit store spec; a table's owner for a table."""
    if spec.startswith("dir:"):
        return DirectoryStorage(Path(spec.removeprefix("dir:")))
    return TableStorage(spec.removeprefix("db:"))
