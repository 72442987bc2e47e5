"""A saga killed from outside (`temporal workflow terminate`, a run timeout, the history limit)
is found by one collector run, shown as KILLED, and recovered once by two operators: compensated
before its pivot, finished forward from it, each effect exactly once."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from temporalio.api.common.v1 import WorkflowExecution
from temporalio.api.sdk.v1 import WorkflowMetadata
from temporalio.api.workflowservice.v1 import DeleteWorkflowExecutionRequest
from temporalio.client import WorkflowExecutionStatus
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from sagas import SagaStatus
from sagas.client import SagaHandle
from sagas.engine import SAGA_STATUS, SAGA_TYPE, RecoveryView, recovery_id, saga_id
from sagas.foundations import RecoveryRefusedError, SagaNotFoundError
from sagas.ledger import funding_account_id, system_account_id
from sagas.payouts import PAYOUT_CLEARING
from sagas.servers import DELETED_GRACE, VisibilityCollector
from sagas.testing import assert_eventually, kit_operator
from sagas.verify import CompensationAudit, run_compensation_audit
from tests.e2e.conftest import fundsaga
from tests.killed.conftest import KilledRig
from tests.provider.http import call

pytestmark = pytest.mark.slow

TRANSFER_CLEARING = "@clearing:EUR"
PAYOUT = SearchAttributePair(SAGA_TYPE, "payout")
RUNNING = SearchAttributePair(SAGA_STATUS, SagaStatus.RUNNING.value)
RUN_TIMEOUT = timedelta(seconds=6)
"""Long enough for a payout to pass its pivot; it then times out waiting for its settlement."""


def _key(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


async def _transfer_killed_before_its_pivot(rig: KilledRig, source: str = "alice") -> SagaHandle:
    """A transfer terminated while its credit is retried: money held and captured."""
    saga = await _transfer_in_credit(rig, source)
    await saga.workflow.terminate(reason="killed before its pivot, by hand")
    return saga


async def _transfer_in_credit(rig: KilledRig, source: str = "alice") -> SagaHandle:
    key = _key("t")
    request = {
        "idempotency_key": key,
        "source_account": source,
        "destination_account": "carol",
        "amount": "100.00",
        "currency": "EUR",
    }
    await rig.client.start("transfer", request)
    saga = rig.client.saga("transfer", key)

    def credit_in_flight() -> None:
        steps = [s.step_name for s in rig.ledger.snapshots(saga.saga_id)]
        assert steps[-1:] == ["credit"]

    await assert_eventually(credit_in_flight)
    return saga


async def _payout_past_its_pivot(
    rig: KilledRig, provider: str, run_timeout: timedelta | None = None
) -> SagaHandle:
    """A payout that waits for the provider's settlement (money in clearing), started by the
    client, or as any Temporal client may, with a run timeout."""
    beneficiary = _key("ben")
    rule = {"account": beneficiary, "behaviour": "settle-callback", "callbacks": 0}
    assert call(f"{provider}/scenarios", "POST", rule | {"settle_after_seconds": 0}).status == 201
    key = _key("po")
    request = {
        "idempotency_key": key,
        "account": "customer",
        "beneficiary": beneficiary,
        "currency": "EUR",
        "amount": "40.00",
        "settle_wait_seconds": 3600,
    }
    if run_timeout is None:
        await rig.client.start("payout", request)
    else:
        await rig.client.temporal.start_workflow(
            rig.client.workflow_type("payout"),
            request,
            id=saga_id("payout", key),
            task_queue=rig.client.task_queue,
            run_timeout=run_timeout,
            search_attributes=TypedSearchAttributes(
                [
                    SearchAttributePair(SAGA_TYPE, "payout"),
                    SearchAttributePair(SAGA_STATUS, "RUNNING"),
                ]
            ),
        )
    saga = rig.client.saga("payout", key)

    async def waiting_to_settle() -> None:
        assert (await saga.view()).current_step == "settle"

    await assert_eventually(waiting_to_settle)
    return saga


async def _payout_killed_after_its_pivot(rig: KilledRig, provider: str) -> SagaHandle:
    saga = await _payout_past_its_pivot(rig, provider)
    await saga.workflow.terminate(reason="killed after its pivot, by hand")
    return saga


async def _payout_timed_out_after_its_pivot(rig: KilledRig, provider: str) -> SagaHandle:
    saga = await _payout_past_its_pivot(rig, provider, RUN_TIMEOUT)

    async def timed_out() -> None:
        assert (await saga.describe()).status is WorkflowExecutionStatus.TIMED_OUT

    await assert_eventually(timed_out, timeout=RUN_TIMEOUT * 3)
    return saga


async def _found(rig: KilledRig, saga: SagaHandle) -> RecoveryView:
    """The killed saga's recovery, once it has read the saga's effects from the database."""

    async def read() -> RecoveryView:
        try:
            return await rig.client.recoveries().view(saga.saga_id)
        except SagaNotFoundError as err:
            raise AssertionError(str(err)) from err

    return await assert_eventually(read)


async def _recovery_details(rig: KilledRig, saga: SagaHandle) -> str:
    """The Current Details the Web UI shows on the page of the saga's recovery."""
    recovery = rig.env.client.get_workflow_handle(recovery_id(saga.saga_id))
    metadata: WorkflowMetadata = await recovery.query(
        "__temporal_workflow_metadata", result_type=WorkflowMetadata
    )
    return metadata.current_details


async def _fundsaga(capsys: pytest.CaptureFixture[str], *argv: str) -> int:
    return await fundsaga("attention", *argv, "--output", "json")


async def _attention(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> list[dict[str, str]]:
    capsys.readouterr()
    assert await _fundsaga(capsys, "list") == 0
    rows: list[dict[str, str]] = json.loads(capsys.readouterr().out)
    return rows


async def _audit(rig: KilledRig) -> CompensationAudit:
    """The compensation audit as `fundsaga audit compensations` runs it."""
    statuses = {saga: status for saga, _, status in await rig.client.list_sagas()}
    return run_compensation_audit(rig.ledger, rig.store, statuses)


async def test_sagas_killed_before_and_after_their_pivot_are_found_and_recovered_once(
    rig: KilledRig,
    provider: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    transfer = await _transfer_killed_before_its_pivot(rig)
    payout = await _payout_killed_after_its_pivot(rig, provider)
    timed_out = await _payout_timed_out_after_its_pivot(rig, provider)
    payout_clearing = system_account_id(PAYOUT_CLEARING, "EUR")
    assert rig.balance(payout_clearing) == "80.00 EUR"

    async def both_found() -> None:
        collection = await rig.collector.collect(datetime.now(UTC), check_ledger=False)
        killed = {b.saga_type: b.killed for b in collection.backlogs if b.killed}
        assert killed == {"transfer": 1, "payout": 2}

    await assert_eventually(both_found)
    listed = {saga: status for saga, _, status in await rig.client.list_sagas()}
    assert {listed[s.saga_id] for s in (transfer, payout, timed_out)} == {"KILLED"}
    assert await rig.client.recoveries().open_recoveries() == []  # never a second recovery
    assert (await _found(rig, transfer)).compensations == ["credit", "capture", "reserve"]
    details = await _recovery_details(rig, transfer)
    key = transfer.saga_id.removeprefix("transfer-")
    assert f"**Status:** KILLED: {transfer.saga_id}'s execution was Terminated" in details
    assert "**Amount:** 100.00 EUR" in details
    assert "**Recovery will:** undo credit, capture, reserve" in details
    assert f"`fundsaga attention recover {key} --type transfer --note TEXT`" in details
    payout_effects = (await _found(rig, payout)).effects
    assert payout_effects.net_effect[payout_clearing] == "40.00 EUR"

    killed_rows = await _attention(monkeypatch, capsys)
    effects = {row["saga_id"]: set(row["effects"].split("; ")) for row in killed_rows}
    paid_in = {f"{payout_clearing} 40.00 EUR", "customer -40.00 EUR"}
    assert effects == {
        transfer.saga_id: {f"{TRANSFER_CLEARING} 100.00 EUR", "alice -100.00 EUR"},
        payout.saga_id: paid_in,
        timed_out.saga_id: paid_in,
    }
    findings = (await _audit(rig)).findings
    killed_findings = sorted(f.split(" (record")[0] for f in findings if "killed" in f)
    assert killed_findings == sorted(
        [
            *(f"{s.saga_id}: killed (Terminated) and not recovered" for s in (transfer, payout)),
            f"{timed_out.saga_id}: killed (TimedOut) and not recovered",
        ]
    )

    monkeypatch.setenv("FUNDSAGA_OPERATOR", "maker")
    recover = [
        "recover",
        transfer.idempotency_key,
        "-t",
        "transfer",
        "--note",
        "terminated by hand",
    ]
    assert await _fundsaga(capsys, *recover) == 0
    proposal = json.loads(capsys.readouterr().out)["proposal_id"]
    approve = [
        "approve-recovery",
        transfer.idempotency_key,
        "-t",
        "transfer",
        "--proposal",
        proposal,
    ]
    assert await _fundsaga(capsys, *approve) == 1  # the maker alone is refused
    assert "SameOperatorError" in capsys.readouterr().err
    monkeypatch.setenv("FUNDSAGA_OPERATOR", "checker")
    assert await _fundsaga(capsys, *approve) == 0
    assert json.loads(capsys.readouterr().out)["status"] == "COMPENSATED"
    assert await _fundsaga(capsys, *approve) == 1  # never twice
    # "already recovering" while the approved recovery still runs, "recovered" once it closed
    assert "already recover" in capsys.readouterr().err

    maker, checker = rig.recoveries("maker"), rig.recoveries("checker")
    with pytest.raises(RecoveryRefusedError, match="already recover"):
        await checker.approve(transfer.saga_id, proposal)
    with pytest.raises(RecoveryRefusedError):
        await maker.propose(transfer.saga_id, "once more")

    proposal = await maker.propose(payout.saga_id, "terminated by hand after its pivot")
    assert await checker.approve(payout.saga_id, proposal) is SagaStatus.COMPLETED
    proposal = await maker.propose(timed_out.saga_id, "its run timed out after its pivot")
    assert await checker.approve(timed_out.saga_id, proposal) is SagaStatus.COMPLETED

    assert rig.ledger.net_effect(transfer.saga_id) == {}
    assert [
        h for h in rig.ledger.holds(saga_id=transfer.saga_id) if h.status.value == "active"
    ] == []
    assert rig.balance("alice") == "1000.00 EUR"
    assert rig.balance("carol") == "0.00 EUR"
    assert rig.balance(TRANSFER_CLEARING) == "0.00 EUR"
    assert rig.balance(payout_clearing) == "0.00 EUR"
    assert rig.balance("customer") == "20.00 EUR"
    assert rig.balance(funding_account_id("EUR")) == "-1520.00 EUR"  # 1,600 funded, 80 paid out
    for saga in (payout, timed_out):
        payout_entries = sorted(e.kind for e in rig.ledger.entries(saga_id=saga.saga_id))
        assert payout_entries == ["payout", "payout"]  # captured and settled, each once
    assert rig.ledger.check_invariants() == []
    listed = {saga: status for saga, _, status in await rig.client.list_sagas()}
    shown = (listed[transfer.saga_id], listed[payout.saga_id], listed[timed_out.saga_id])
    assert shown == ("COMPENSATED", "COMPLETED", "COMPLETED")

    def recorded() -> None:  # the approval returns before the recovery writes its last record
        for saga in (transfer, payout, timed_out):
            kinds = [r.kind for r in rig.store.records(saga_id=saga.saga_id)]
            assert kinds == [
                "saga_killed",
                "recovery_proposed",
                "recovery_approved",
                "saga_recovered",
            ]

    await assert_eventually(recorded)
    report = await _audit(rig)
    assert report.findings == []
    checks = {line.saga_id: line.ledger_check for line in report.sagas}
    assert checks[transfer.saga_id].startswith("net effect zero on every account; recovered")
    assert "proposed by maker, approved by checker" in checks[payout.saga_id]
    assert await _attention(monkeypatch, capsys) == []


async def test_a_saga_deleted_while_open_is_found_with_its_effects_but_cannot_be_recovered(
    rig: KilledRig,
) -> None:
    saga = await _transfer_in_credit(rig)
    temporal = rig.env.client
    await temporal.workflow_service.delete_workflow_execution(
        DeleteWorkflowExecutionRequest(
            namespace=temporal.namespace,
            workflow_execution=WorkflowExecution(workflow_id=saga.saga_id),
        )
    )

    async def gone() -> None:
        assert (await temporal.count_workflows(f"WorkflowId = '{saga.saga_id}'")).count == 0

    await assert_eventually(gone)
    names = rig.client.registry.names()
    collector = VisibilityCollector(temporal, rig.client.task_queue, names, rig.ledger)
    claimed_long_enough_ago = datetime.now(UTC) + 2 * DELETED_GRACE

    async def found() -> None:
        collection = await collector.collect(claimed_long_enough_ago, check_ledger=False)
        assert {b.saga_type: b.killed for b in collection.backlogs if b.killed} == {"transfer": 1}

    await assert_eventually(found)
    recovery = await _found(rig, saga)
    assert recovery.killed.closed_as == "Deleted"
    assert recovery.effects.net_effect == {"alice": "-100.00 EUR", TRANSFER_CLEARING: "100.00 EUR"}
    assert (saga.saga_id, "transfer", "KILLED") in await rig.client.list_sagas(
        status=SagaStatus.KILLED
    )
    with pytest.raises(RecoveryRefusedError, match="no longer in Temporal's history"):
        await rig.recoveries("maker").propose(saga.saga_id, "deleted by mistake")
    details = await _recovery_details(rig, saga)
    net = details.split("**Net effect:** ")[1].split("\n")[0]
    assert set(net.split("; ")) == {"alice -100.00 EUR", f"{TRANSFER_CLEARING} 100.00 EUR"}
    assert "**Resolve with:** by hand: its request is no longer in Temporal's history" in details
    assert "fundsaga attention recover" not in details
    assert [r.kind for r in rig.store.records(saga_id=saga.saga_id)] == ["saga_killed"]


async def test_a_saga_killed_while_parked_parks_again_in_its_recovery_until_an_operator_retries(
    rig: KilledRig, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    saga = await _transfer_in_credit(rig, source="dave")

    async def parked_on_capture() -> None:
        assert (await saga.view()).status is SagaStatus.NEEDS_ATTENTION

    await assert_eventually(parked_on_capture, timeout=timedelta(seconds=60))
    await saga.workflow.terminate(reason="killed while parked, by hand")

    async def found() -> None:
        await rig.collector.collect(datetime.now(UTC), check_ledger=False)
        assert await rig.client.recoveries().awaiting("transfer") == [(saga.saga_id, "transfer")]

    await assert_eventually(found)
    proposal = await rig.recoveries("maker").propose(saga.saga_id, "terminated by hand")
    parked = await rig.recoveries("checker").approve(saga.saga_id, proposal)
    rows = await _attention(monkeypatch, capsys)
    rig.faults.clear()
    operator = replace(saga, operator=kit_operator("ops"))
    await operator.retry("the account accepts it again")

    assert parked is SagaStatus.NEEDS_ATTENTION
    assert [(row["saga_id"], row["parked_on"]) for row in rows] == [(saga.saga_id, "capture")]

    async def compensated() -> None:
        listed = await rig.client.list_sagas("transfer")
        assert (saga.saga_id, "transfer", "COMPENSATED") in listed

    await assert_eventually(compensated)
    assert rig.ledger.net_effect(saga.saga_id) == {}
    assert rig.balance("dave") == "500.00 EUR"

    def recorded() -> None:  # the status shows before the recovery writes its last record
        assert [r.kind for r in rig.store.records(saga_id=saga.saga_id)] == [
            "needs_attention",  # the killed run's parking
            "saga_killed",
            "recovery_proposed",
            "recovery_approved",
            "needs_attention",  # the recovery's own, recorded apart from the killed run's
            "operator_retry",
            "saga_recovered",
        ]

    await assert_eventually(recorded)
