"""`write_new_file`: a file is created for one write, with its mode, never over another."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from sagas.foundations import write_new_file


def test_the_file_holds_the_bytes_with_the_mode_asked(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    data = b"x" * 300_000

    write_new_file(path, data, 0o444, durable=True)

    assert path.read_bytes() == data
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_an_existing_file_is_refused_and_left_as_it_was(tmp_path: Path) -> None:
    path = tmp_path / "key.pem"
    path.write_bytes(b"first")

    with pytest.raises(FileExistsError):
        write_new_file(path, b"second", 0o600)

    assert path.read_bytes() == b"first"
