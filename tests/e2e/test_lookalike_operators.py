"""One person under a look-alike name, as the second operator of a two-operator action: `ana`
spelt with a Cyrillic a (U+0430) or a Greek alpha, full-width, or with a zero-width space, and
`rnia` for `mia` (UTS #39: rn looks like m). Each approval of a funding, a break resolution and
a recovery is refused with nothing written (the proposal still open, no approval on the audit
record, no money moved); a genuinely different operator then approves."""

from __future__ import annotations

import functools
import uuid
from collections.abc import AsyncIterator
from dataclasses import replace

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus, SameOperatorError, parse_faults
from sagas.audit import AuditStore
from sagas.client import FundsagaClient, OperatorActions, SagaHandle, SagaRecoveries
from sagas.engine import Adjustment, FundingStatus, recovery_id, resolution_id
from sagas.foundations import RecoveryRefusedError
from sagas.ledger import Ledger
from sagas.testing import assert_eventually, dev_identity, kit_operator, new_task_queue
from sagas.worker import build_worker
from tests.e2e._breaks import open_break
from tests.e2e.conftest import eur

pytestmark = pytest.mark.slow

LOOK_ALIKES = {
    "ana": ["\u0430na", "\u03b1na", "\uff41\uff4e\uff41", "an\u200ba"],
    "mia": ["rnia"],
}
"""Each maker and the names a person could take for theirs."""
MAKERS = list(LOOK_ALIKES)


def actions(temporal: Client, queue: str, name: str) -> OperatorActions:
    return OperatorActions(temporal, queue, kit_operator(name))


@pytest.fixture
async def queue(
    dev_env: WorkflowEnvironment, funded: Ledger, audit_store: AuditStore
) -> AsyncIterator[str]:
    """A worker, with the transfer's credit failing transiently so a test can kill one in
    flight."""
    task_queue = new_task_queue()
    async with build_worker(
        dev_env.client,
        task_queue,
        funded,
        audit_store,
        parse_faults("transfer/credit=transient"),
        operators=dev_identity().check(),
    ):
        yield task_queue


async def test_a_look_alike_cannot_approve_a_funding(
    dev_env: WorkflowEnvironment, queue: str, funded: Ledger, audit_store: AuditStore
) -> None:
    for maker in MAKERS:
        proposed = await actions(dev_env.client, queue, maker).propose_funding(
            "carol", eur("10.00"), f"top-up proposed by {maker}"
        )
        for look_alike in LOOK_ALIKES[maker]:
            with pytest.raises(SameOperatorError, match="another operator approves"):
                await actions(dev_env.client, queue, look_alike).approve_funding(proposed)
        waiting = await actions(dev_env.client, queue, maker).funding(proposed)
        kinds = [r.kind for r in audit_store.records(saga_id=proposed)]

        assert waiting.status is FundingStatus.AWAITING_APPROVAL
        assert waiting.approved_by is None
        assert kinds == ["funding_proposed"]
        assert funded.account("carol").balance == eur("0.00")

    funded_view = await actions(dev_env.client, queue, "bob").approve_funding(proposed)
    assert funded_view.status is FundingStatus.FUNDED
    assert funded.account("carol").balance == eur("10.00")


async def test_a_look_alike_cannot_approve_a_break_resolution(
    dev_env: WorkflowEnvironment, queue: str, funded: Ledger, audit_store: AuditStore
) -> None:
    for maker in MAKERS:
        before = funded.account("carol").balance
        found = open_break(funded, "5.00")
        adjustment = Adjustment(account_id="carol", amount="5.00", currency="EUR")
        await actions(dev_env.client, queue, maker).propose_resolution(
            found.break_id, "returned by the bank", adjustment
        )
        for look_alike in LOOK_ALIKES[maker]:
            with pytest.raises(SameOperatorError, match="another operator approves"):
                await actions(dev_env.client, queue, look_alike).approve_resolution(found.break_id)
        waiting = await actions(dev_env.client, queue, maker).resolution(found.break_id)
        kinds = [r.kind for r in audit_store.records(saga_id=resolution_id(found.break_id))]

        assert (waiting.status, waiting.approved_by) == (FundingStatus.AWAITING_APPROVAL, None)
        assert kinds == ["break_resolution_proposed"]
        assert funded.account("carol").balance == before
        # Each is closed: its workflow id (the break's) comes again with the next test's ledger.
        resolved = await actions(dev_env.client, queue, "bob").approve_resolution(found.break_id)
        assert resolved.status is FundingStatus.FUNDED
        assert funded.account("carol").balance == before + eur("5.00")
        await dev_env.client.get_workflow_handle(resolution_id(found.break_id)).result()


async def killed_transfer(client: FundsagaClient, ledger: Ledger) -> SagaHandle:
    """A transfer terminated from outside while its credit is retried: money held."""
    key = f"lookalike-{uuid.uuid4().hex[:10]}"
    request = {
        "idempotency_key": key,
        "source_account": "alice",
        "destination_account": "carol",
        "amount": "20.00",
        "currency": "EUR",
    }
    await client.start("transfer", request)
    saga = client.saga("transfer", key)

    def credit_in_flight() -> None:
        assert [s.step_name for s in ledger.snapshots(saga.saga_id)][-1:] == ["credit"]

    await assert_eventually(credit_in_flight)
    await saga.workflow.terminate(reason="killed by hand")
    return saga


async def proposed(recoveries: SagaRecoveries, saga_id: str) -> str:
    """The recovery's proposal, once Temporal's visibility lists the saga as terminated."""
    try:
        return await recoveries.propose(saga_id, "terminated by hand")
    except RecoveryRefusedError as err:
        raise AssertionError(str(err)) from err


async def test_a_look_alike_cannot_approve_a_recovery(
    dev_env: WorkflowEnvironment, queue: str, funded: Ledger, audit_store: AuditStore
) -> None:
    client = FundsagaClient(dev_env.client, queue, funded)
    for maker in MAKERS:
        saga = await killed_transfer(client, funded)
        effects = funded.net_effect(saga.saga_id)
        recoveries = SagaRecoveries(dev_env.client, queue, kit_operator(maker))

        proposal = await assert_eventually(functools.partial(proposed, recoveries, saga.saga_id))
        for look_alike in LOOK_ALIKES[maker]:
            checker = replace(recoveries, operator=kit_operator(look_alike))
            with pytest.raises(SameOperatorError, match="another operator approves"):
                await checker.approve(saga.saga_id, proposal)
        view = await recoveries.view(saga.saga_id)
        kinds = [r.kind for r in audit_store.records(saga_id=recovery_id(saga.saga_id))]
        kinds += [r.kind for r in audit_store.records(saga_id=saga.saga_id)]

        assert view.approved_by is None
        assert "recovery_approved" not in kinds
        assert funded.net_effect(saga.saga_id) == effects != {}

    checker = replace(recoveries, operator=kit_operator("bob"))
    assert await checker.approve(saga.saga_id, proposal) is SagaStatus.COMPENSATED
    assert funded.net_effect(saga.saga_id) == {}
