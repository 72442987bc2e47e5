"""A break's adjusting entry moves at most the break's difference: a 0.01 EUR break proposed
with a 1,000,000.00 EUR adjustment is refused at its approval, naming `adjustment`, with
nothing posted, until an operator with the treasury role (neither the proposer nor the
approver) approves the excess; the records state the difference, the adjustment and who
approved the excess. An adjustment within the difference needs no treasury approval."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from sagas import InvalidRequestError, SameOperatorError
from sagas.audit import AuditStore
from sagas.client import OperatorActions
from sagas.engine import Adjustment, FundingStatus, OperatorRole, resolution_id
from sagas.foundations import OperatorRefusedError
from sagas.ledger import Ledger
from sagas.reconcile import BreakStatus, Reconciliation
from sagas.testing import dev_identity, kit_operator, new_task_queue
from sagas.worker import build_worker
from tests.e2e._breaks import open_break
from tests.e2e.conftest import eur, fundsaga

pytestmark = pytest.mark.slow

MILLION = Adjustment(account_id="carol", amount="1000000.00", currency="EUR")


@pytest.fixture
async def queue(
    dev_env: WorkflowEnvironment, funded: Ledger, audit_store: AuditStore
) -> AsyncIterator[str]:
    task_queue = new_task_queue()
    operators = dev_identity().check()
    async with build_worker(dev_env.client, task_queue, funded, audit_store, operators=operators):
        yield task_queue


def as_operator(temporal: Client, queue: str, name: str, *roles: OperatorRole) -> OperatorActions:
    chosen = roles or (OperatorRole.OPERATOR, OperatorRole.APPROVER)
    return OperatorActions(temporal, queue, kit_operator(name, chosen))


def records(store: AuditStore, break_id: int) -> dict[str, dict[str, Any]]:
    return {r.kind: dict(r.payload) for r in store.records(saga_id=resolution_id(break_id))}


async def test_an_adjustment_beyond_the_break_s_difference_needs_a_treasury_approval(
    dev_env: WorkflowEnvironment, queue: str, funded: Ledger, audit_store: AuditStore
) -> None:
    temporal = dev_env.client
    found = open_break(funded, "0.01")
    ana, bob = as_operator(temporal, queue, "ana"), as_operator(temporal, queue, "bob")
    tess = as_operator(temporal, queue, "tess", OperatorRole.TREASURY)

    proposed = await ana.propose_resolution(found.break_id, "bank return", MILLION)
    with pytest.raises(InvalidRequestError) as beyond:
        await bob.approve_resolution(found.break_id)
    with pytest.raises(OperatorRefusedError, match="lacks the 'treasury' role"):
        await bob.approve_excess(found.break_id)
    own = as_operator(temporal, queue, "\u0430na", OperatorRole.TREASURY)  # ana, Cyrillic a
    with pytest.raises(SameOperatorError, match="another operator approves the excess"):
        await own.approve_excess(found.break_id)
    waiting = await ana.resolution(found.break_id)
    refused_records = records(audit_store, found.break_id)
    balance_while_refused = funded.account("carol").balance
    still = Reconciliation(funded, ()).find_break(found.break_id).status

    assert (proposed.break_difference, proposed.exceeds_difference) == ("0.01 EUR", True)
    assert beyond.value.field == "adjustment"
    assert "1000000.00 EUR is beyond the break's difference (0.01 EUR)" in beyond.value.problem
    assert "treasury" in beyond.value.problem
    assert (waiting.status, waiting.approved_by, waiting.excess_approved_by) == (
        FundingStatus.AWAITING_APPROVAL,
        None,
        None,
    )
    assert list(refused_records) == ["break_resolution_proposed"]
    assert refused_records["break_resolution_proposed"]["break_difference"] == "0.01 EUR"
    assert balance_while_refused == eur("0.00")
    assert still is BreakStatus.OPEN

    excess = await tess.approve_excess(found.break_id)
    with pytest.raises(SameOperatorError, match="approved this resolution's excess"):
        await as_operator(temporal, queue, "tess").approve_resolution(found.break_id)
    resolved = await bob.approve_resolution(found.break_id)
    await temporal.get_workflow_handle(resolution_id(found.break_id)).result()
    written = records(audit_store, found.break_id)
    closed = Reconciliation(funded, ()).find_break(found.break_id)

    assert excess.excess_approved_by is not None
    assert excess.excess_approved_by.subject == "tess"
    assert resolved.status is FundingStatus.FUNDED
    assert funded.account("carol").balance == eur("1000000.00")
    assert list(written) == [
        "break_resolution_proposed",
        "break_excess_approved",
        "break_resolved",
    ]
    for record in written.values():
        assert record["break_difference"] == "0.01 EUR"
        assert record["adjustment"]["amount"] == "1000000.00"
        assert record["exceeds_difference"] is True
    assert written["break_excess_approved"]["identity"]["subject"] == "tess"
    approved_excess = written["break_resolved"]["excess_approved_by"]
    assert (approved_excess["operator"], approved_excess["identity"]["subject"]) == ("tess", "tess")
    assert written["break_resolved"]["identity"]["subject"] == "bob"
    assert closed.status is BreakStatus.RESOLVED
    assert closed.resolved_by == "ana (proposed), bob (approved), tess (approved the excess)"


async def test_an_adjustment_within_the_difference_is_approved_as_before(
    dev_env: WorkflowEnvironment, queue: str, funded: Ledger, audit_store: AuditStore
) -> None:
    temporal = dev_env.client
    found = open_break(funded, "40.00")
    ana, bob = as_operator(temporal, queue, "ana"), as_operator(temporal, queue, "bob")
    tess = as_operator(temporal, queue, "tess", OperatorRole.TREASURY)
    within = Adjustment(account_id="carol", amount="40.00", currency="EUR")

    proposed = await ana.propose_resolution(found.break_id, "bank return", within)
    with pytest.raises(OperatorRefusedError, match="no adjustment beyond"):
        await tess.approve_excess(found.break_id)
    resolved = await bob.approve_resolution(found.break_id)
    await temporal.get_workflow_handle(resolution_id(found.break_id)).result()
    written = records(audit_store, found.break_id)

    assert (proposed.break_difference, proposed.exceeds_difference) == ("40.00 EUR", False)
    assert resolved.status is FundingStatus.FUNDED
    assert funded.account("carol").balance == eur("40.00")
    assert list(written) == ["break_resolution_proposed", "break_resolved"]
    assert written["break_resolved"]["break_difference"] == "40.00 EUR"
    assert "excess_approved_by" not in written["break_resolved"]


async def test_an_adjustment_that_is_not_money_is_refused_when_proposed(
    dev_env: WorkflowEnvironment, queue: str, funded: Ledger, audit_store: AuditStore
) -> None:
    found = open_break(funded, "0.01")
    ana = as_operator(dev_env.client, queue, "ana")
    garbled = Adjustment(account_id="carol", amount="1e6", currency="EUR")

    with pytest.raises(OperatorRefusedError, match=r"^adjustment: "):
        await ana.propose_resolution(found.break_id, "bank return", garbled)
    await dev_env.client.get_workflow_handle(resolution_id(found.break_id)).result()

    assert records(audit_store, found.break_id) == {}
    assert (await ana.resolution(found.break_id)).status is FundingStatus.REFUSED


async def test_the_cli_names_the_adjustment_and_takes_the_treasury_approval(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    funded: Ledger,
    audit_store: AuditStore,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    found = open_break(funded, "0.01")
    number = str(found.break_id)
    operators = dev_identity().check()

    async def as_(name: str, *argv: str) -> tuple[int, str]:
        monkeypatch.setenv("FUNDSAGA_OPERATOR", name)
        capsys.readouterr()
        code = await fundsaga("reconcile", *argv)
        return code, capsys.readouterr().err

    async with build_worker(
        dev_env.client, cli_task_queue, funded, audit_store, operators=operators
    ):
        adjust = ["--adjust-account", "carol", "--adjust-amount", "1000000.00"]
        proposed = await as_("ana", "resolve", number, "--note", "bank return", *adjust)
        refused = await as_("bob", "approve", number)
        excess = await as_("tess", "approve-excess", number)
        approved = await as_("bob", "approve", number)
        await dev_env.client.get_workflow_handle(resolution_id(found.break_id)).result()

    assert proposed == (0, "")
    assert refused[0] == 2
    assert "adjustment" in refused[1]
    assert "beyond the break's difference (0.01 EUR)" in refused[1]
    assert excess == (0, "")
    assert approved == (0, "")
    assert funded.account("carol").balance == eur("1000000.00")
