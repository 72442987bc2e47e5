"""A concurrent writer, importable by spawned processes."""

from __future__ import annotations

from sagas.audit import AuditStore

PER_WRITER = 25


def append_many(store: AuditStore, writer: str) -> list[int]:
    """Append PER_WRITER records as `writer`; their sequence numbers."""
    return [
        store.append(
            kind="terminal",
            saga_id=f"saga-{writer}-{n}",
            dedupe_key=f"{writer}:{n}",
            payload={"writer": writer, "n": n},
        ).sequence
        for n in range(PER_WRITER)
    ]
