from __future__ import annotations

from pathlib import Path

import pytest

from sagas import InvalidRequestError
from sagas.foundations import make_engine


def test_sqlite_engine_creates_the_directory_and_sets_its_pragmas(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "fundsaga.db"
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as connection:
            pragmas = {
                name: connection.exec_driver_sql(f"PRAGMA {name}").scalar()
                for name in ("journal_mode", "busy_timeout", "foreign_keys")
            }
    finally:
        engine.dispose()

    assert path.parent.is_dir()
    assert pragmas == {"journal_mode": "wal", "busy_timeout": 5000, "foreign_keys": 1}


def test_postgres_urls_use_psycopg() -> None:
    engine = make_engine("postgresql://postgres@127.0.0.1:5432/fundsaga")
    try:
        assert engine.url.drivername == "postgresql+psycopg"
        assert engine.pool.size() == 10  # type: ignore[attr-defined]
    finally:
        engine.dispose()


def test_other_databases_are_refused() -> None:
    with pytest.raises(InvalidRequestError) as raised:
        make_engine("mysql://root@localhost/fundsaga")

    assert raised.value.field == "database_url"
