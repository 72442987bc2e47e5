"""The fault matrix runs on the time-skipping server with the real activities.

On SQLite by default, to keep the suite fast; FUNDSAGA_MATRIX_DATABASES=sqlite,postgres runs
it on both.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas.audit import AuditStore, open_audit_store
from sagas.ledger import Ledger
from tests.fixtures_audit import TEST_KEYS
from tests.matrix.rig import MatrixRig

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


@pytest.fixture
def rig(
    time_skipping_env: WorkflowEnvironment, matrix_ledger: Ledger, audit_store: AuditStore
) -> MatrixRig:
    return MatrixRig(time_skipping_env, matrix_ledger, audit_store)
