"""Taking a checkpoint of a store: apart from `Checkpoint`, which the store's interface uses."""

from __future__ import annotations

from sagas.audit._checkpoint import Checkpoint
from sagas.audit._record import GENESIS_HASH
from sagas.audit._store import AuditStore


def take_checkpoint(store: AuditStore) -> Checkpoint:
    """The store's current head, to keep somewhere the store's writers cannot reach."""
    head = store.head()
    return Checkpoint(
        sequence=head.sequence if head else 0,
        hash=head.hash if head else GENESIS_HASH,
        taken_at=store.now(),
    )
