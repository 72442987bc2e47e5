from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from sagas.audit import AuditStore, open_audit_store
from tests.fixtures_audit import TEST_KEYS

BACKENDS = ["dir", "sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.fixture(params=BACKENDS)
def store_spec(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty audit store: a directory, a migrated SQLite file or a PostgreSQL database."""
    if request.param == "dir":
        return f"dir:{tmp_path / 'audit'}"
    url: str = request.getfixturevalue(f"{request.param}_url")
    return f"db:{url}"


@pytest.fixture
def insider_spec(store_spec: str, request: pytest.FixtureRequest) -> str:
    """The store of `store_spec` as an insider who can rewrite it behind the store's back."""
    if "postgresql" not in store_spec:
        return store_spec
    # The worker role may only read and append: rewriting rows takes the table's owner.
    owner_url: str = request.getfixturevalue("postgres_owner_url")
    return f"db:{owner_url}"


@pytest.fixture
def store(store_spec: str) -> Iterator[AuditStore]:
    opened = open_audit_store(store_spec, TEST_KEYS)
    yield opened
    opened.close_connections()
