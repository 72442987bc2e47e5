"""A funding or an overdraft limit sent straight to the worker (from another language, or the
`temporal` CLI) with an amount that is not money is refused when it is proposed, naming the
field, before anything is recorded: not found only once the approved entry is posted."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from temporalio.client import WorkflowHandle, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from sagas.audit import AuditStore
from sagas.engine import (
    FUNDING_WORKFLOW,
    OPERATOR_ACTION_WORKFLOW,
    OPERATOR_VERIFIED_UPDATE,
    AccountLimitCall,
    AuditKind,
    FundingRequest,
    FundingStatus,
    FundingView,
    OperatorAct,
    OperatorActionRequest,
    OperatorBinding,
    funding_id,
)
from sagas.ledger import Ledger
from sagas.testing import kit_token, new_task_queue
from tests.e2e.test_operator import worker


async def refused(handle: WorkflowHandle[Any, Any]) -> str:
    """The refusal the caller hears from `operator_verified`."""
    with pytest.raises(WorkflowUpdateFailedError) as failed:
        await handle.execute_update(OPERATOR_VERIFIED_UPDATE, result_type=str)
    cause = failed.value.cause
    assert isinstance(cause, ApplicationError)
    return f"{cause.type}: {cause.message}"


@pytest.mark.parametrize(
    ("amount", "currency", "refusal"),
    [
        ("1.005", "EUR", "amount: '1.005' has more decimals than EUR allows (2)"),
        ("250", "ZZZ", "currency: unknown currency 'ZZZ'"),
        ("-5.00", "EUR", "amount: '-5.00' is not a plain decimal amount"),
    ],
)
async def test_a_funding_of_no_money_is_refused_before_it_is_proposed(
    dev_env: WorkflowEnvironment,
    funded: Ledger,
    audit_store: AuditStore,
    amount: str,
    currency: str,
    refusal: str,
) -> None:
    queue = new_task_queue()
    key = f"bad-{uuid.uuid4().hex[:10]}"
    workflow_id = funding_id(key)
    proof = kit_token("ana", OperatorBinding(workflow_id=workflow_id, action=OperatorAct.PROPOSE))
    request = FundingRequest(
        funding_key=key, account_id="carol", amount=amount, currency=currency, proof=proof
    )
    async with worker(dev_env, queue, funded, audit_store, ""):
        handle = await dev_env.client.start_workflow(
            FUNDING_WORKFLOW, request, id=workflow_id, task_queue=queue, result_type=FundingView
        )
        heard = await refused(handle)
        view = await handle.result()

    assert heard.startswith(f"OperatorRefusedError: {refusal}")
    assert view.status is FundingStatus.REFUSED
    assert view.proposed_by is None
    assert audit_store.records(saga_id=workflow_id) == []


async def test_an_overdraft_of_no_money_is_refused_before_the_account_opens(
    dev_env: WorkflowEnvironment, funded: Ledger, audit_store: AuditStore
) -> None:
    queue = new_task_queue()
    account = f"acc-{uuid.uuid4().hex[:8]}"
    workflow_id = f"account-action-{account}-{uuid.uuid4().hex[:12]}"
    kind = AuditKind.ACCOUNT_LIMIT_SET
    request = OperatorActionRequest(
        kind=kind,
        subject_type="account",
        subject_id=account,
        proof=kit_token("ana", OperatorBinding(workflow_id=workflow_id, action=kind.value)),
        account_limit=AccountLimitCall(account_id=account, currency="EUR", overdraft="50.005"),
    )
    async with worker(dev_env, queue, funded, audit_store, ""):
        handle = await dev_env.client.start_workflow(
            OPERATOR_ACTION_WORKFLOW, request, id=workflow_id, task_queue=queue
        )
        heard = await refused(handle)
        result = await handle.result()

    assert (
        heard == "OperatorRefusedError: overdraft: '50.005' has more decimals than EUR allows (2)"
    )
    assert result == {}
    assert funded.find_account(account) is None
    assert audit_store.records(saga_id=account) == []
