"""Fault-matrix fixtures: a fresh ledger and audit store per case.

The ledger is on SQLite by default, to keep the suite fast; FUNDSAGA_MATRIX_DATABASES=sqlite,
postgres runs the matrices on both.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from sagas.audit import AuditStore, open_audit_store
from sagas.ledger import Ledger
from tests.fixtures_audit import TEST_KEYS

DATABASES = os.environ.get("FUNDSAGA_MATRIX_DATABASES", "sqlite").split(",")


@pytest.fixture(
    params=[
        pytest.param(name, marks=[pytest.mark.postgres] if name == "postgres" else [])
        for name in DATABASES
    ]
)
def matrix_ledger(request: pytest.FixtureRequest) -> Iterator[Ledger]:
    """A ledger on a fresh migrated database (fixtures sqlite_url or postgres_url)."""
    url: str = request.getfixturevalue(f"{request.param}_url")
    ledger = Ledger.from_url(url)
    yield ledger
    ledger.close_connections()


@pytest.fixture
def audit_store(tmp_path: Path) -> Iterator[AuditStore]:
    store = open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    yield store
    store.close_connections()
