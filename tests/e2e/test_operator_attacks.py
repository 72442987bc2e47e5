"""Maker-checker as an insider would attack it: one person under two typed names or two
spellings, an approval sent through `temporal workflow update` with no proof or a forged one,
and an operator without the approver role. Each is refused with the saga still parked and no
approval on the audit record; two distinct verified operators then resolve it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import jwt
import pytest
import sqlalchemy
from temporalio.api.enums.v1 import EventType
from temporalio.client import WorkflowHandle, WorkflowHistory, WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus
from sagas.audit import AuditStore
from sagas.client import DevIdentityProvider, SagaHandle
from sagas.engine import (
    APPROVE_FUNDING_UPDATE,
    APPROVE_UPDATE,
    OPERATOR_ACTION_WORKFLOW,
    OPERATOR_VERIFIED_UPDATE,
    PROPOSE_UPDATE,
    RETRY_UPDATE,
    AccountStatusCall,
    AuditKind,
    FundingApproval,
    OperatorAct,
    OperatorAction,
    OperatorActionRequest,
    OperatorBinding,
    OperatorRole,
    funding_proposal,
)
from sagas.ledger import Ledger
from sagas.testing import assert_eventually, dev_identity, kit_operator, kit_token
from tests.e2e.conftest import TemporalCli, eur
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
        approval = approving(saga, proposal)
        events_before = await event_count(saga)

        typed_bob = await raw_approval(
            saga, OperatorAction(operator="bob", proof=approval("ana"), proposal_id=proposal)
        )
        spellings = [
            await raw_approval(saga, OperatorAction(proof=approval(name), proposal_id=proposal))
            for name in ("ana\u200b", "Ana", "\uff41\uff4e\uff41")
        ]
        no_proof = await raw_approval(saga, OperatorAction(operator="bob", proposal_id=proposal))
        forger = DevIdentityProvider(tmp_path / "forger")
        forged = await raw_approval(
            saga,
            OperatorAction(
                proof=forger.mint("bob", binding=binding_of(saga, proposal)), proposal_id=proposal
            ),
        )
        only_operator = await raw_approval(
            saga,
            OperatorAction(proof=approval("dan", OperatorRole.OPERATOR), proposal_id=proposal),
        )
        claims_identity = await raw_approval(
            saga,
            OperatorAction(
                proof=approval("bob"),
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
        events_after = await event_count(saga)
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
    assert events_after == events_before  # refused in the validator: nothing reached the history
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


def binding_of(saga: SagaHandle, proposal: str) -> OperatorBinding:
    return OperatorBinding(workflow_id=saga.saga_id, action=OperatorAct.APPROVE, proposal=proposal)


def approving(saga: SagaHandle, proposal: str) -> Callable[..., str]:
    """Tokens of the kit's provider, each bound to approving `proposal` on the saga."""

    def token(name: str, *roles: OperatorRole) -> str:
        return kit_token(name, binding_of(saga, proposal), roles or tuple(OperatorRole))

    return token


async def event_count(saga: SagaHandle) -> int:
    return len((await saga.workflow.fetch_history()).events)


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


def proof_in_update(history: WorkflowHistory, update: str) -> str:
    """The token an operator sent with `update`, as anyone who reads the history decodes it."""
    for event in history.events:
        if event.HasField("workflow_execution_update_accepted_event_attributes"):
            request = event.workflow_execution_update_accepted_event_attributes.accepted_request
            if request.input.name == update:
                proof: str = json.loads(request.input.args.payloads[0].data)["proof"]
                return proof
    raise AssertionError(f"no {update} in the history")


def proof_at_start(history: WorkflowHistory) -> dict[str, Any]:
    started = history.events[0].workflow_execution_started_event_attributes
    request: dict[str, Any] = json.loads(started.input.payloads[0].data)
    return request


async def refusal(handle: WorkflowHandle[Any, Any], update: str, arg: Any) -> str:
    with pytest.raises(WorkflowUpdateFailedError) as refused:
        await handle.execute_update(update, arg)
    cause = refused.value.cause
    assert isinstance(cause, ApplicationError)
    return f"{cause.type}: {cause.message}"


def signed(claims: dict[str, Any], **changes: Any) -> str:
    """`claims` with `changes` (None drops one), signed by the kit's trusted provider."""
    changed = {k: v for k, v in (claims | changes).items() if v is not None}
    return dev_identity().sign(changed)


async def test_a_token_from_a_history_replays_nowhere_and_refusals_leave_no_event(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    funded: Ledger,
    audit_store: AuditStore,
    tmp_path: Path,
) -> None:
    client = fast_client(dev_env, cli_task_queue, funded)
    async with worker(dev_env, cli_task_queue, funded, audit_store, PARKING_FAULTS):
        first = replace(client.saga("transfer", await park_one(client)), operator=None)
        other = replace(client.saga("transfer", await park_one(client)), operator=None)
        await replace(first, operator=kit_operator("ana")).propose("reversed at the bank")
        theirs = await replace(other, operator=kit_operator("bob")).propose("reversed too")
        copied = proof_in_update(await first.workflow.fetch_history(), PROPOSE_UPDATE)
        claims = jwt.decode(copied, options={"verify_signature": False})
        on_other = binding_of(other, theirs).authorization_detail()
        before = (await event_count(first), await event_count(other))
        records_before = len(audit_store.records())

        forger = DevIdentityProvider(tmp_path / "forger")
        attempts = {
            "replayed-same-saga": (first, PROPOSE_UPDATE, OperatorAction(proof=copied)),
            "replayed-other-saga-propose": (other, PROPOSE_UPDATE, OperatorAction(proof=copied)),
            "replayed-other-saga-approve": (
                other,
                APPROVE_UPDATE,
                OperatorAction(proof=copied, proposal_id=theirs),
            ),
            "replayed-as-retry": (first, RETRY_UPDATE, OperatorAction(proof=copied)),
            "no-token-retry": (first, RETRY_UPDATE, OperatorAction(operator="ana")),
            "no-token-propose": (other, PROPOSE_UPDATE, OperatorAction()),
            "no-token-approve": (other, APPROVE_UPDATE, OperatorAction(proposal_id=theirs)),
            "garbage": (first, RETRY_UPDATE, OperatorAction(proof="not-a-token")),
            "garbage-jwt": (first, RETRY_UPDATE, OperatorAction(proof="eyJhbGciOi.eyJ.x")),
            "forged-signature": (
                other,
                APPROVE_UPDATE,
                OperatorAction(
                    proof=forger.mint("cy", binding=binding_of(other, theirs)),
                    proposal_id=theirs,
                ),
            ),
            "expired": (
                other,
                APPROVE_UPDATE,
                OperatorAction(
                    proof=signed(claims, authorization_details=[on_other], exp=1, iat=None),
                    proposal_id=theirs,
                ),
            ),
            "valid-until-2100": (
                other,
                APPROVE_UPDATE,
                OperatorAction(
                    proof=signed(claims, authorization_details=[on_other], exp=4102444800),
                    proposal_id=theirs,
                ),
            ),
            "no-jti": (
                other,
                APPROVE_UPDATE,
                OperatorAction(
                    proof=signed(claims, authorization_details=[on_other], jti=None),
                    proposal_id=theirs,
                ),
            ),
            "unbound": (
                other,
                APPROVE_UPDATE,
                OperatorAction(proof=dev_identity().mint("cy"), proposal_id=theirs),
            ),
            "bound-to-another-proposal": (
                other,
                APPROVE_UPDATE,
                OperatorAction(proof=kit_token("cy", binding_of(other, "p7")), proposal_id=theirs),
            ),
            "rebound-by-hand": (
                other,
                APPROVE_UPDATE,
                OperatorAction(
                    proof=copied.rsplit(".", 2)[0]
                    + "."
                    + signed(claims, authorization_details=[on_other]).split(".")[1]
                    + "."
                    + copied.rsplit(".", 1)[1],
                    proposal_id=theirs,
                ),
            ),
            "own-proposal": (
                other,
                APPROVE_UPDATE,
                OperatorAction(
                    proof=kit_token("bob", binding_of(other, theirs)), proposal_id=theirs
                ),
            ),
            "no-approver-role": (
                other,
                APPROVE_UPDATE,
                OperatorAction(
                    proof=kit_token("dan", binding_of(other, theirs), [OperatorRole.OPERATOR]),
                    proposal_id=theirs,
                ),
            ),
            "identity-filled-in": (
                first,
                RETRY_UPDATE,
                OperatorAction(
                    proof=kit_token("cy", retry_of(first)),
                    identity=client_side_identity("cy"),
                ),
            ),
            "proposal-token-approves": (
                other,
                APPROVE_UPDATE,
                OperatorAction(
                    proof=kit_token("cy", propose_of(other)),
                    proposal_id=theirs,
                ),
            ),
        }
        refusals = {
            name: await refusal(saga.workflow, update, action)
            for name, (saga, update, action) in attempts.items()
        }
        after = (await event_count(first), await event_count(other))
        records_after = len(audit_store.records())
        spent = token_uses(funded)
        approved = await replace(other, operator=kit_operator("ana")).approve(theirs, "checked")

    assert len(refusals) == 20
    assert after == before, refusals  # not one refused update reached either history
    assert records_after == records_before
    assert refusals["replayed-same-saga"].endswith("it was already used for an action")
    for name in ("replayed-other-saga-propose", "replayed-other-saga-approve"):
        assert f"the token is bound to propose on {first.saga_id}, not to" in refusals[name]
    assert "Signature has expired" in refusals["expired"]
    assert "longer than the 0:15:00" in refusals["valid-until-2100"]
    assert "no token id (jti)" in refusals["no-jti"]
    assert "bound to exactly one action" in refusals["unbound"]
    assert "Signature verification failed" in refusals["rebound-by-hand"]
    assert refusals["own-proposal"].startswith("SameOperatorError")
    assert all(
        r.startswith(("OperatorRefusedError", "SameOperatorError")) for r in refusals.values()
    )
    assert sorted(spent) == sorted([(first.saga_id, "propose"), (other.saga_id, "propose")])
    assert approved is not SagaStatus.NEEDS_ATTENTION


def retry_of(saga: SagaHandle) -> OperatorBinding:
    return OperatorBinding(workflow_id=saga.saga_id, action=OperatorAct.RETRY)


def propose_of(saga: SagaHandle) -> OperatorBinding:
    return OperatorBinding(workflow_id=saga.saga_id, action=OperatorAct.PROPOSE)


def token_uses(ledger: Ledger) -> list[tuple[str, str]]:
    with ledger.engine.connect() as connection:
        rows = connection.execute(
            sqlalchemy.text("SELECT workflow_id, action FROM operator_token_use")
        ).all()
    return [(row.workflow_id, row.action) for row in rows]


async def test_a_spent_token_is_refused_on_a_new_run_of_its_own_workflow(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    funded: Ledger,
    audit_store: AuditStore,
) -> None:
    """The worker's memory of spent tokens is the database's, not a workflow's: a freeze token
    read from the finished freeze's history, sent again on a new run of the same workflow id
    after the account was unfrozen, freezes nothing."""
    actions = fast_client(dev_env, cli_task_queue, funded, "ana").operator_actions()
    async with worker(dev_env, cli_task_queue, funded, audit_store, ""):
        await actions.set_account_status(AuditKind.ACCOUNT_FROZEN, "alice", "suspicious")
        await actions.set_account_status(AuditKind.ACCOUNT_UNFROZEN, "alice", "cleared")
        freeze = next(r for r in audit_store.records(saga_id="alice") if r.kind == "account_frozen")
        frozen_by = dev_env.client.get_workflow_handle(freeze.dedupe_key)
        request = proof_at_start(await frozen_by.fetch_history())
        records_before = [r.kind for r in audit_store.records(saga_id="alice")]

        again = await dev_env.client.start_workflow(
            OPERATOR_ACTION_WORKFLOW,
            OperatorActionRequest.model_validate(request),
            id=frozen_by.id,
            task_queue=cli_task_queue,
        )
        with pytest.raises(WorkflowUpdateFailedError) as refused:
            await again.execute_update(OPERATOR_VERIFIED_UPDATE, result_type=str)
        result = await again.result()

    cause = refused.value.cause
    assert isinstance(cause, ApplicationError)
    assert cause.type == "OperatorRefusedError"
    assert f"it was already used (account_frozen on {frozen_by.id})" in cause.message
    assert result == {}
    assert [r.kind for r in audit_store.records(saga_id="alice")] == records_before
    assert funded.account("alice").status.value == "active"


async def test_a_funding_approval_is_checked_before_it_touches_the_funding_s_history(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    funded: Ledger,
    audit_store: AuditStore,
) -> None:
    """Money is created only by an approver whose token is bound to this very proposal: the
    proposer's token copied from the history, a token for another proposal, the proposer's own
    approval and a token-less one are refused with no event, then another operator funds."""
    before_balance = funded.account("alice").balance
    async with worker(dev_env, cli_task_queue, funded, audit_store, ""):
        ana = fast_client(dev_env, cli_task_queue, funded, "ana").operator_actions()
        funding = await ana.propose_funding("alice", eur("5000.00"), "opening")
        handle = dev_env.client.get_workflow_handle(funding)
        copied = proof_at_start(await handle.fetch_history())["proof"]
        digest = funding_proposal(await ana.funding(funding))
        approve = OperatorBinding(workflow_id=funding, action=OperatorAct.APPROVE, proposal=digest)
        events_before = await assert_eventually(lambda: awaiting_approval(handle, audit_store))
        attempts = {
            "copied-proposal-token": copied,
            "no-token": "",
            "another-proposal": kit_token("bob", approve.model_copy(update={"proposal": "0" * 64})),
            "unbound": dev_identity().mint("bob"),
            "proposer-approves": kit_token("ana", approve),
        }
        refusals = {
            name: await refusal(handle, APPROVE_FUNDING_UPDATE, FundingApproval(proof=proof))
            for name, proof in attempts.items()
        }
        events_after = len((await handle.fetch_history()).events)
        balance_while_refused = funded.account("alice").balance
        approved = (
            await fast_client(dev_env, cli_task_queue, funded, "bob")
            .operator_actions()
            .approve_funding(funding, "checked")
        )

    assert events_after == events_before, refusals
    assert balance_while_refused == before_balance
    assert refusals["copied-proposal-token"].endswith("it was already used for an action")
    assert "needs a proof of identity" in refusals["no-token"]
    assert "of proposal 0000" in refusals["another-proposal"]
    assert "bound to exactly one action" in refusals["unbound"]
    assert refusals["proposer-approves"].startswith("SameOperatorError: ana proposed")
    assert approved.status.value == "FUNDED"
    assert funded.account("alice").balance == before_balance + eur("5000.00")


async def awaiting_approval(handle: WorkflowHandle[Any, Any], store: AuditStore) -> int:
    """The funding's event count once it recorded its proposal and sits waiting for approval."""
    assert [r.kind for r in store.records(saga_id=handle.id)] == ["funding_proposed"]
    events = (await handle.fetch_history()).events
    assert events[-1].event_type == EventType.EVENT_TYPE_TIMER_STARTED  # the wait for approval
    return len(events)
