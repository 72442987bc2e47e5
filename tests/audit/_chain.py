"""Helpers that fill a store with records."""

from __future__ import annotations

from random import Random

from pydantic import JsonValue

from sagas.audit import AuditRecord, AuditStore

KINDS = ("terminal", "needs_attention", "operator_retry", "operator_resolve", "completed")


def payload_for(index: int, rng: Random) -> dict[str, JsonValue]:
    """A payload with the shapes the engine writes: nesting, numbers, text beyond ASCII."""
    return {
        "saga_type": "transfer",
        "amount": {"minor": rng.randrange(1, 10**9), "currency": rng.choice(["EUR", "JPY"])},
        "steps": [{"name": f"step-{i}", "ok": rng.random() < 0.5} for i in range(3)],
        "note": rng.choice(["", "Zoë paid €12", 'quote " and \\ backslash', "行"]),
        "index": index,
        "ratio": rng.random(),
        "error": None,
    }


def fill(store: AuditStore, count: int, rng: Random) -> list[AuditRecord]:
    return [
        store.append(
            kind=rng.choice(KINDS),
            saga_id=f"saga-{rng.randrange(8)}",
            dedupe_key=f"key-{index}-{rng.getrandbits(64):016x}",
            payload=payload_for(index, rng),
        )
        for index in range(count)
    ]
