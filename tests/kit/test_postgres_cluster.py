"""The kit's own PostgreSQL cluster: its data survives a crash-like stop, its clients see the
outage as a transient fault, and it comes back on the same port."""

from __future__ import annotations

import pytest

from sagas.foundations import ConnectionDroppedError, Money, upgrade_database
from sagas.ledger import Ledger
from sagas.testing import PostgresCluster, StopMode

pytestmark = pytest.mark.postgres


def test_the_cluster_is_its_own(own_postgres_cluster: PostgresCluster) -> None:
    assert own_postgres_cluster.port != 5432
    assert (own_postgres_cluster.data_dir / "PG_VERSION").exists()
    assert own_postgres_cluster.running


@pytest.mark.parametrize("mode", list(StopMode))
def test_an_outage_is_transient_and_loses_nothing_committed(
    own_postgres_cluster: PostgresCluster, mode: StopMode
) -> None:
    url = own_postgres_cluster.url()
    upgrade_database(url)
    ledger = Ledger.from_url(url)
    ledger.open_account("alice", "EUR", opening_balance=Money.of(12_345, "EUR"))

    own_postgres_cluster.stop(mode)
    assert not own_postgres_cluster.running
    with pytest.raises(ConnectionDroppedError):
        ledger.find_account("alice")

    own_postgres_cluster.start()
    found = ledger.find_account("alice")
    assert found is not None
    assert found.balance == Money.of(12_345, "EUR")
    ledger.engine.dispose()


def test_a_removed_cluster_leaves_no_directory(own_postgres_cluster: PostgresCluster) -> None:
    own_postgres_cluster.restart(StopMode.IMMEDIATE)
    assert own_postgres_cluster.running
    own_postgres_cluster.remove()
    assert not own_postgres_cluster.directory.exists()
