"""Operators in tests: a resolution needs two of them, a maker and a checker; so does money
brought into an account."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from temporalio.client import Client

from sagas.client import OperatorActions, SagaHandle
from sagas.engine import AuditKind, FundingView, SagaStatus
from sagas.foundations import Money
from sagas.testing._identity import kit_operator

MAKER, CHECKER = "maker", "checker"


async def resolve_by_two(
    saga: SagaHandle,
    note: str,
    *,
    maker: str = MAKER,
    checker: str = CHECKER,
    issued_at: datetime | None = None,
) -> SagaStatus:
    """Resolve the parked saga as operations do: `maker` proposes, `checker` approves, each
    signed in to the kit's identity provider (tokens issued at `issued_at`: `kit_operator`)."""
    proposal = await replace(saga, operator=kit_operator(maker, issued_at=issued_at)).propose(note)
    checking = replace(saga, operator=kit_operator(checker, issued_at=issued_at))
    return await checking.approve(proposal, note)


async def fund_by_two(
    temporal: Client,
    task_queue: str,
    account_id: str,
    amount: Money,
    *,
    maker: str = MAKER,
    checker: str = CHECKER,
    issued_at: datetime | None = None,
) -> FundingView:
    """Bring `amount` into the account as operations do: `maker` proposes, `checker` approves,
    on a worker of `task_queue` that trusts the kit's identity provider. The entry is then
    witnessed by the audit trail's funding records and the funding's history, which `fundsaga
    ledger verify` requires of every entry outside a saga (an opening balance is not)."""
    proposer = OperatorActions(temporal, task_queue, kit_operator(maker, issued_at=issued_at))
    proposed = await proposer.propose_funding(account_id, amount, "funded by the testing kit")
    approver = OperatorActions(temporal, task_queue, kit_operator(checker, issued_at=issued_at))
    return await approver.approve_funding(proposed, "checked by the testing kit")


async def freeze_by_operator(
    temporal: Client, task_queue: str, account_id: str, *, operator: str = MAKER
) -> None:
    """Freeze the account as operations do: an operator action on a worker of `task_queue`
    that trusts the kit's identity provider, so that its audit record witnesses the change
    (`fundsaga ledger verify` finds a status set straight in the ledger)."""
    actions = OperatorActions(temporal, task_queue, kit_operator(operator))
    await actions.set_account_status(AuditKind.ACCOUNT_FROZEN, account_id, "frozen by the kit")
