"""Recovering the sagas a chaos run terminated from outside, as a deployment would: the
collector's run finds each one (and opens its recovery), one operator proposes, another
approves, and the recovery compensates or finishes it forward from the database's snapshot."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime

from sagas.client import DevIdentityProvider, FundsagaClient
from sagas.servers import VisibilityCollector

MAKER, CHECKER = "chaos-maker", "chaos-checker"


async def recover_terminated(
    client: FundsagaClient, saga_ids: Sequence[str], identity: DevIdentityProvider
) -> dict[str, str]:
    """By saga id, the status of each terminated saga once found and recovered (a saga left out
    was not found); `identity` is the provider the run's workers trust."""
    collector = VisibilityCollector(
        client.temporal, client.task_queue, client.registry.names(), None
    )
    await collector.collect(datetime.now(UTC), check_ledger=False)
    recoveries = client.recoveries()
    found = await recoveries.recovery_statuses()
    maker = replace(recoveries, operator=identity.operator(MAKER))
    checker = replace(recoveries, operator=identity.operator(CHECKER))
    recovered: dict[str, str] = {}
    for saga_id in saga_ids:
        if saga_id not in found:
            continue
        proposal = await maker.propose(saga_id, "terminated from outside by the chaos run")
        recovered[saga_id] = (await checker.approve(saga_id, proposal)).value
    return recovered
