"""Recovering the sagas a chaos run terminated from outside.

PLUG-IN POINT for killed-saga recovery (issue 31, item 4): once the engine finds a saga whose
Temporal execution closed without it (the collector) and an operator can recover it from its
durable snapshot and compensation stack, `recover_terminated` finds each terminated saga with
that detection, recovers it (maker and checker: two verified operators) and returns its status
after recovery. Until then it returns None and the run's check of it is skipped, saying why.
"""

from __future__ import annotations

from collections.abc import Sequence

from sagas.client import FundsagaClient

RECOVERY_NOT_BUILT = (
    "killed-saga detection and recovery (issue 31, item 4) is not built yet: "
    "tooling/chaos/_recovery.py recover_terminated is where it plugs in"
)


async def recover_terminated(
    client: FundsagaClient, saga_ids: Sequence[str]
) -> dict[str, str] | None:
    """By saga id, the status of each terminated saga once found and recovered (a saga left out
    was not found); None while the engine cannot recover one."""
    del client, saga_ids
    return None
