"""Operators in tests: a resolution needs two of them, a maker and a checker."""

from __future__ import annotations

from dataclasses import replace

from sagas.client import SagaHandle
from sagas.engine import SagaStatus
from sagas.testing._identity import kit_operator

MAKER, CHECKER = "maker", "checker"


async def resolve_by_two(
    saga: SagaHandle, note: str, *, maker: str = MAKER, checker: str = CHECKER
) -> SagaStatus:
    """Resolve the parked saga as operations do: `maker` proposes, `checker` approves, each
    signed in to the kit's identity provider."""
    proposal = await replace(saga, operator=kit_operator(maker)).propose(note)
    return await replace(saga, operator=kit_operator(checker)).approve(proposal, note)
