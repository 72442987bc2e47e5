"""Every account status change and overdraft limit against the verified operator action that
made it.

The attacker is a worker host: the worker's database role (`fundsaga_worker` on PostgreSQL, the
file on SQLite) and the audit signing key, both of which the ledger's own unfreeze and
open_account use. Its change is signed and recorded as the triggers demand; `fundsaga ledger
verify` still finds that no operator action made it, and a record the worker signed for it
names an action Temporal never ran.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from pydantic import JsonValue
from temporalio.client import Client, WorkflowUpdateFailedError
from temporalio.testing import WorkflowEnvironment

from sagas.audit import AuditRecord, AuditStore
from sagas.client import OperatorActions
from sagas.engine import (
    OPERATOR_ACTION_WORKFLOW,
    OPERATOR_VERIFIED_UPDATE,
    AuditKind,
    OperatorActionRequest,
    account_status_call,
)
from sagas.foundations import DATABASE_WORKER_ROLE
from sagas.ledger import AccountStatus, Ledger
from sagas.testing import dev_identity, kit_operator
from sagas.worker import build_worker
from tests.e2e.conftest import eur, fundsaga

UNFREEZE_BY_NO_OPERATOR = (
    "account 'bob' status change 2 (active) has no operator action: no signed account_unfrozen "
    "record of a verified operator names it: it was set behind the operator actions' back"
)


@pytest.fixture
async def actions(
    dev_env: WorkflowEnvironment, cli_task_queue: str, ledger: Ledger, audit_store: AuditStore
) -> AsyncIterator[OperatorActions]:
    """A worker on the CLI's task queue that trusts the kit's operators; bob's account. The
    ledger is the worker's: its role on PostgreSQL, its signing key."""
    if ledger.engine.dialect.name == "postgresql":
        with ledger.engine.connect() as connection:
            role = connection.exec_driver_sql("SELECT current_user").scalar()
        assert role == DATABASE_WORKER_ROLE
    ledger.open_account("bob", "EUR")
    operators = dev_identity().check()
    async with build_worker(
        dev_env.client, cli_task_queue, ledger, audit_store, operators=operators
    ):
        yield OperatorActions(dev_env.client, cli_task_queue, kit_operator("ops"))


async def ledger_verify(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = await fundsaga("ledger", "verify", "--output", "json")
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, report


async def test_an_account_frozen_unfrozen_and_closed_by_operators_verifies_clean(
    actions: OperatorActions, ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    await actions.set_account_status(AuditKind.ACCOUNT_FROZEN, "bob", "a court order")
    await actions.set_account_status(AuditKind.ACCOUNT_FROZEN, "bob", "again: changes nothing")
    await actions.set_account_status(AuditKind.ACCOUNT_UNFROZEN, "bob", "lifted")
    await actions.set_account_status(AuditKind.ACCOUNT_CLOSED, "bob", "customer left")

    code, report = await ledger_verify(capsys)

    assert (code, report["findings"], report["temporal_compared"]) == (0, [], True)
    assert [change.status for change in ledger.status_changes()] == [
        AccountStatus.FROZEN,
        AccountStatus.ACTIVE,
        AccountStatus.CLOSED,
    ]


async def test_an_overdraft_granted_by_an_operator_verifies_clean(
    actions: OperatorActions, ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    facts = await actions.open_account_with_limit("carol", eur("500.00"), "credit line")

    code, report = await ledger_verify(capsys)

    assert (code, report["findings"]) == (0, [])
    assert (facts["overdraft"], ledger.account("carol").overdraft) == ("500.00", eur("500.00"))


async def test_an_overdraft_the_worker_opened_an_account_with_is_found(
    actions: OperatorActions, ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    """The worker's role may insert accounts (system accounts open on first use): it opens a
    mule account with a limit nobody granted, which a transfer could then spend."""
    await actions.open_account_with_limit("carol", eur("500.00"), "credit line")

    ledger.open_account("mule", "EUR", overdraft=eur("1000000.00"))
    code, report = await ledger_verify(capsys)

    assert code == 1
    assert report["findings"] == [
        "account 'mule' overdraft limit 1000000.00 EUR has no operator action: no signed "
        "account_limit_set record of a verified operator names it: it was set behind the "
        "operator actions' back"
    ]


async def test_an_unfreeze_by_the_worker_through_the_ledger_is_found(
    actions: OperatorActions, ledger: Ledger, capsys: pytest.CaptureFixture[str]
) -> None:
    """The worker's role and key call the ledger's own unfreeze: signed, recorded, no action."""
    await actions.set_account_status(AuditKind.ACCOUNT_FROZEN, "bob", "a court order")

    assert ledger.unfreeze("bob").status is AccountStatus.ACTIVE
    code, report = await ledger_verify(capsys)

    assert code == 1
    assert report["findings"] == [UNFREEZE_BY_NO_OPERATOR]


async def test_an_unfreeze_with_a_record_the_worker_signed_is_found(
    actions: OperatorActions,
    ledger: Ledger,
    audit_store: AuditStore,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The worker also signs the record an operator action would write, naming the operator of
    the real freeze and the status version its unfreeze took: Temporal never ran that action."""
    await actions.set_account_status(AuditKind.ACCOUNT_FROZEN, "bob", "a court order")
    (frozen,) = records_of(audit_store, AuditKind.ACCOUNT_FROZEN)

    ledger.unfreeze("bob")
    forged = audit_store.append(
        kind=AuditKind.ACCOUNT_UNFROZEN,
        saga_id="bob",
        dedupe_key="account-action-bob-0123456789ab",
        payload=forged_unfreeze(frozen),
    )
    code, report = await ledger_verify(capsys)

    assert code == 1
    (finding,) = report["findings"]
    assert finding.startswith(
        "account 'bob' status change 2 (active) has no operator action: Temporal does not know "
        f"account-action-bob-0123456789ab, the operator action record {forged.sequence} names, "
        "and no audit anchor taken before the namespace's retention"
    )


async def test_an_unfreeze_with_a_record_naming_a_refused_action_is_found(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    actions: OperatorActions,
    ledger: Ledger,
    audit_store: AuditStore,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The worker host also reaches Temporal: it starts an unfreeze of bob with no valid token,
    which the worker refuses, and names that action's workflow, which Temporal does know, in
    its forged record. Its history shows no worker unfreezing anything."""
    await actions.set_account_status(AuditKind.ACCOUNT_FROZEN, "bob", "a court order")
    (frozen,) = records_of(audit_store, AuditKind.ACCOUNT_FROZEN)
    refused = "account-action-bob-fedcba987654"
    await refused_unfreeze(dev_env.client, cli_task_queue, refused)

    ledger.unfreeze("bob")
    forged = audit_store.append(
        kind=AuditKind.ACCOUNT_UNFROZEN,
        saga_id="bob",
        dedupe_key=refused,
        payload=forged_unfreeze(frozen),
    )
    code, report = await ledger_verify(capsys)

    assert code == 1
    assert report["findings"] == [
        "account 'bob' status change 2 (active) has no operator action: the history of "
        f"{refused} shows no worker applying what record {forged.sequence} says: a record "
        "written without the action"
    ]


async def test_a_record_naming_another_workflow_than_an_action_on_the_account_is_found(
    actions: OperatorActions,
    ledger: Ledger,
    audit_store: AuditStore,
    capsys: pytest.CaptureFixture[str],
) -> None:
    await actions.set_account_status(AuditKind.ACCOUNT_FROZEN, "bob", "a court order")
    (frozen,) = records_of(audit_store, AuditKind.ACCOUNT_FROZEN)

    ledger.unfreeze("bob")
    forged = audit_store.append(
        kind=AuditKind.ACCOUNT_UNFROZEN,
        saga_id="bob",
        dedupe_key="transfer-some-saga",
        payload=forged_unfreeze(frozen),
    )
    code, report = await ledger_verify(capsys)

    assert code == 1
    assert report["findings"] == [
        "account 'bob' status change 2 (active) has no operator action: record "
        f"{forged.sequence} names transfer-some-saga, no operator action on the account"
    ]


async def refused_unfreeze(temporal: Client, task_queue: str, workflow_id: str) -> None:
    """An unfreeze of bob started with a token nobody issued, once the worker refused it."""
    request = OperatorActionRequest(
        kind=AuditKind.ACCOUNT_UNFROZEN,
        subject_type="account",
        subject_id="bob",
        proof="not-a-token",
        account_status=account_status_call(AuditKind.ACCOUNT_UNFROZEN, "bob"),
    )
    handle = await temporal.start_workflow(
        OPERATOR_ACTION_WORKFLOW, request, id=workflow_id, task_queue=task_queue
    )
    with pytest.raises(WorkflowUpdateFailedError):
        await handle.execute_update(OPERATOR_VERIFIED_UPDATE)
    assert await handle.result() == {}


def records_of(store: AuditStore, kind: AuditKind) -> list[AuditRecord]:
    return [record for record in store.records() if record.kind == kind]


def forged_unfreeze(frozen: AuditRecord) -> dict[str, JsonValue]:
    return frozen.payload | {"status": "active", "status_version": 2, "note": "lifted"}
