"""A PostgreSQL cluster of the test's own (sagas.testing.PostgresCluster), to stop under load.

The tests that need one skip where PostgreSQL is not installed, except under CI=true where
they fail.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from sagas.testing import PostgresCluster, PostgresNotFoundError


@pytest.fixture
def own_postgres_cluster() -> Iterator[PostgresCluster]:
    """A started cluster on a free port in its own temporary directory, removed after the test."""
    try:
        cluster = PostgresCluster.create()
    except PostgresNotFoundError as exc:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(str(exc))
        pytest.skip(str(exc))
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.remove()
