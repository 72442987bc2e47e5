"""Write-once record files: published complete, exclusively, read-only, and fsync'd."""

from __future__ import annotations

import fcntl
import os
import re
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from sagas.audit._record import AuditRecord, record_line
from sagas.foundations import write_new_file

READ_ONLY = 0o440
"""Owner and group read; records hold sagas' data, so no other user reads them."""
DIRECTORY_MODE = 0o750
LOCK_NAME = ".lock"
_RECORD_NAME = re.compile(r"(\d{12})\.json")


def record_name(sequence: int) -> str:
    return f"{sequence:012d}.json"


def sequence_of(name: str) -> int | None:
    """The sequence number a file name holds, None when it is not a record file's name."""
    match = _RECORD_NAME.fullmatch(name)
    return int(match.group(1)) if match else None


def entry_names(directory: Path) -> list[str]:
    """The directory's entries except hidden ones (the lock and unpublished temp files)."""
    try:
        return [name for name in os.listdir(directory) if not name.startswith(".")]
    except FileNotFoundError:
        return []


def publish(directory: Path, record: AuditRecord) -> None:
    """Create the record's file; FileExistsError when its sequence number is taken.

    The bytes go to a private temp file first and are linked into place: a link never
    replaces an existing name, and a crash can never leave a half-written record file.
    """
    final = directory / record_name(record.sequence)
    temp = directory / f".{record.sequence:012d}.{uuid.uuid4().hex}.tmp"
    try:
        _write_read_only(temp, record_line(record))
        os.link(temp, final)
    finally:
        temp.unlink(missing_ok=True)
    fsync_directory(directory)


def ensure_directory(directory: Path) -> None:
    if not directory.is_dir():
        directory.mkdir(mode=DIRECTORY_MODE, parents=True, exist_ok=True)
        fsync_directory(directory.parent)


def _write_read_only(path: Path, data: bytes) -> None:
    write_new_file(path, data, READ_ONLY, durable=True)


def fsync_directory(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Hold the directory's exclusive lock (against other processes) while extending it."""
    fd = os.open(directory / LOCK_NAME, os.O_RDWR | os.O_CREAT, 0o640)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
