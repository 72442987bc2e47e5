"""Waiting for a saga a schedule starts: the launcher starts it a moment after the fire."""

from __future__ import annotations

from sagas.client import FundsagaClient
from sagas.foundations import SagaNotFoundError


async def started(client: FundsagaClient, key: str) -> None:
    """Passes once the transfer with `key` exists (for `assert_eventually`)."""
    try:
        await client.saga("transfer", key).view()
    except SagaNotFoundError:
        raise AssertionError(f"no transfer {key} yet") from None
