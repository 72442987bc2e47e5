"""Maker-checker as an insider would attack it: one person under two typed names or two
spellings, an approval sent through `temporal workflow update` with no proof or a forged one,
and an operator without the approver role. Each is refused with the saga still parked and no
approval on the audit record; two distinct verified operators then resolve it."""

from __future__ import annotations

import json
import uuid
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus
from sagas.audit import AuditStore
from sagas.client import DevIdentityProvider, SagaHandle
from sagas.engine import (
    APPROVE_UPDATE,
    OPERATOR_ACTION_WORKFLOW,
    OPERATOR_VERIFIED_UPDATE,
    AccountStatusCall,
    AuditKind,
    OperatorAction,
    OperatorActionRequest,
    OperatorRole,
)
from sagas.ledger import Ledger
from sagas.testing import dev_identity, kit_operator
from tests.e2e.conftest import TemporalCli
from tests.e2e.test_operator import PARKING_FAULTS, fast_client, park_one, worker


async def raw_approval(saga: SagaHandle, action: OperatorAction) -> str:
    """An approval sent straight to the saga's workflow, around the client's checks; the
    refusal's error type."""
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await saga.workflow.execute_update(APPROVE_UPDATE, action)
    cause = refused.value.cause
    assert isinstance(cause, ApplicationError)
    return f"{cause.type}: {cause.message}"


async def test_one_person_cannot_be_maker_and_checker_by_any_name_or_path(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    funded: Ledger,
    audit_store: AuditStore,
    temporal: TemporalCli,
    tmp_path: Path,
) -> None:
    client = fast_client(dev_env, cli_task_queue, funded)
    async with worker(dev_env, cli_task_queue, funded, audit_store, PARKING_FAULTS):
        key = await park_one(client)
        saga = replace(client.saga("transfer", key), operator=kit_operator("ana"))
        proposal = await saga.propose("reversed at the bank")
        ana = dev_identity().mint("ana")

        typed_bob = await raw_approval(
            saga, OperatorAction(operator="bob", proof=ana, proposal_id=proposal)
        )
        spellings = [
            await raw_approval(
                saga, OperatorAction(proof=dev_identity().mint(name), proposal_id=proposal)
            )
            for name in ("ana\u200b", "Ana", "\uff41\uff4e\uff41")
        ]
        no_proof = await raw_approval(saga, OperatorAction(operator="bob", proposal_id=proposal))
        forger = DevIdentityProvider(tmp_path / "forger")
        forged = await raw_approval(
            saga, OperatorAction(proof=forger.mint("bob"), proposal_id=proposal)
        )
        only_operator = await raw_approval(
            saga,
            OperatorAction(
                proof=dev_identity().mint("dan", [OperatorRole.OPERATOR]), proposal_id=proposal
            ),
        )
        claims_identity = await raw_approval(
            saga,
            OperatorAction(
                proof=dev_identity().mint("bob"),
                proposal_id=proposal,
                identity=client_side_identity("bob"),
            ),
        )
        through_cli = await temporal(
            "workflow",
            "update",
            "execute",
            "--workflow-id",
            saga.saga_id,
            "--name",
            APPROVE_UPDATE,
            "--input",
            json.dumps({"operator": "bob", "proposal_id": proposal}),
        )
        still = (await saga.view()).status
        records_while_refused = [r.kind for r in audit_store.records(saga_id=saga.saga_id)]

        status = await replace(saga, operator=kit_operator("bob")).approve(proposal, "checked")
        outcome = await saga.outcome()

    assert typed_bob.startswith("SameOperatorError: ana proposed p1")
    assert all(s.startswith("SameOperatorError") for s in spellings), spellings
    assert no_proof.startswith("OperatorRefusedError: an operator action needs a proof")
    assert forged.startswith("OperatorRefusedError: access token refused")
    assert only_operator.startswith("OperatorRefusedError: dan lacks the 'approver' role")
    assert claims_identity.startswith("OperatorRefusedError: identity: filled in by the saga")
    assert through_cli.returncode != 0
    assert "needs a proof of identity" in through_cli.stderr + through_cli.stdout
    assert still is SagaStatus.NEEDS_ATTENTION
    assert records_while_refused == ["needs_attention", "resolution_proposed"]
    assert status is not SagaStatus.NEEDS_ATTENTION
    assert outcome.status is SagaStatus.RESOLVED
    proposed, approved = (
        r.payload for r in audit_store.records(saga_id=saga.saga_id) if r.kind.startswith("res")
    )
    assert subject(proposed["operator_action"]) == ("fundsaga-dev", "ana")
    assert subject(approved["operator_action"]) == ("fundsaga-dev", "bob")
    recorded = json.dumps([proposed, approved])
    assert "eyJ" not in recorded  # no access token (a JWT's header starts so) is kept


def client_side_identity(name: str) -> Any:
    """An identity a caller fills in itself, hoping the saga takes it as verified."""
    token = dev_identity().mint(name)
    return {
        "issuer": "fundsaga-dev",
        "subject": name,
        "name": name,
        "roles": ["operator", "approver"],
        "token_sha256": "0" * 64,
        "expires_at": "2099-01-01T00:00:00Z",
        "token_id": token[:8],
    }


def subject(recorded: Any) -> tuple[str, str]:
    identity = recorded["identity"]
    return identity["issuer"], identity["subject"]


@pytest.mark.parametrize(
    ("kind", "subject_type", "status"),
    [
        (AuditKind.FUNDING_APPROVED, "funding", None),  # a record of money nobody approved
        (AuditKind.RESOLUTION_APPROVED, "transfer", None),
        (AuditKind.ACCOUNT_FROZEN, "account", "active"),  # says frozen, unfreezes
        (AuditKind.STATEMENT_IMPORTED, "statement", None),  # counts the worker never wrote
    ],
)
async def test_a_verified_operator_cannot_record_an_action_it_did_not_take(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    funded: Ledger,
    audit_store: AuditStore,
    kind: AuditKind,
    subject_type: str,
    status: str | None,
) -> None:
    request = OperatorActionRequest(
        kind=kind,
        subject_type=subject_type,
        subject_id="alice",
        proof=dev_identity().mint("ana"),
        account_status=AccountStatusCall(account_id="alice", status=status) if status else None,
    )
    async with worker(dev_env, cli_task_queue, funded, audit_store, ""):
        handle = await dev_env.client.start_workflow(
            OPERATOR_ACTION_WORKFLOW,
            request,
            id=f"forged-{uuid.uuid4().hex[:10]}",
            task_queue=cli_task_queue,
        )
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await handle.execute_update(OPERATOR_VERIFIED_UPDATE, result_type=str)
        result = await handle.result()

    cause = refused.value.cause
    assert isinstance(cause, ApplicationError)
    assert (cause.type, cause.message.split(":")[0]) == ("OperatorRefusedError", "kind")
    assert result == {}
    assert audit_store.records(saga_id="alice") == []
    assert funded.account("alice").status.value == "active"
