"""The witness of every account status change and overdraft limit: the verified operator action
that made it.

Only the `OperatorAction` workflow changes an account's status or opens one with an overdraft
(workflows/operator_actions.py): it verifies the operator, the worker acts, and the workflow
writes the audit record naming the verified operator and what the worker did (the status
version the change took; the limit). So each status change the ledger recorded, and each
account's limit above zero, needs that signed record of its kind (`account_frozen`,
`account_unfrozen`, `account_closed`, `account_limit_set`) and, while Temporal must still hold
it, the record's workflow, whose history shows the worker doing what the record says. One
without is a finding whoever signed the row: the worker's key
signs every change, and its database role may call the ledger's own unfreeze or open an
account with any limit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from sagas.audit import AuditRecord
from sagas.codec import SEALED_FIELD
from sagas.engine import AuditKind, VerifiedOperator
from sagas.ledger import AccountStatus, AccountView, Ledger, StatusChangeView
from sagas.verify.witness._action_histories import ACCOUNT_KINDS, ActionHistories
from sagas.verify.witness._anchored_reach import NOTHING_ANCHORED, AnchoredReach
from sagas.verify.witness._temporal_histories import TemporalWitness

STATUS_KINDS = {
    AccountStatus.FROZEN: AuditKind.ACCOUNT_FROZEN,
    AccountStatus.ACTIVE: AuditKind.ACCOUNT_UNFROZEN,
    AccountStatus.CLOSED: AuditKind.ACCOUNT_CLOSED,
}
ACCOUNT_ACTION_ID = re.compile(r"account-action-(?P<account_id>.+)-[0-9a-f]{12}")
"""How the client names an account's operator action workflows (sagas.client)."""


@dataclass(frozen=True)
class AccountChanges:
    """What operator actions change on accounts, as the ledger holds it."""

    statuses: Sequence[StatusChangeView]
    limits: Sequence[AccountView]
    """The customer accounts whose overdraft limit is above zero."""

    @classmethod
    def read(cls, ledger: Ledger) -> AccountChanges:
        limited = [account for account in ledger.accounts() if account.overdraft.minor]
        return cls(ledger.status_changes(), limited)


def account_witness_findings(
    changes: AccountChanges,
    records: Iterable[AuditRecord],
    temporal: TemporalWitness,
    histories: ActionHistories | None = None,
    reach: AnchoredReach = NOTHING_ANCHORED,
) -> list[str]:
    """Each status change, then each limit, that no verified operator action witnesses;
    `records` are the audit trail's verified records, `histories` what the histories of the
    actions they name show the worker did (not compared when None). An account with an
    operator action under way is not judged yet: its record follows the change."""
    actions = _AccountActions.of(records, histories or ActionHistories(), reach)
    findings: list[str] = []
    for change in changes.statuses:
        if change.migrated:  # set before revision 0011 recorded changes: nothing to tie it to
            continue
        problem = actions.status_problem(change, temporal)
        if problem is not None:
            where = f"account {change.account_id!r} status change {change.version}"
            findings.append(f"{where} ({change.status}) has no operator action: {problem}")
    for account in changes.limits:
        problem = actions.limit_problem(account, temporal)
        if problem is not None:
            where = f"account {account.account_id!r} overdraft limit {account.overdraft}"
            findings.append(f"{where} has no operator action: {problem}")
    return findings


def awaiting_operator(account_id: str, temporal: TemporalWitness) -> bool:
    """Whether an operator action on the account is under way: its record follows."""
    return any(action_on(workflow, account_id) for workflow in temporal.in_flight)


def action_on(workflow_id: str, account_id: str) -> bool:
    """Whether the workflow is an operator action on the account, by its id."""
    named = ACCOUNT_ACTION_ID.fullmatch(workflow_id)
    return named is not None and named.group("account_id") == account_id


@dataclass(frozen=True)
class _AccountActions:
    statuses: dict[tuple[str, str, int], AuditRecord]
    """The first record of each (account, kind, status version)."""
    limits: dict[str, AuditRecord]
    """The first `account_limit_set` record of each account."""
    sealed: dict[str, AuditRecord]
    """An account's first account action record whose payload this verifier cannot open."""
    histories: ActionHistories
    reach: AnchoredReach

    @classmethod
    def of(
        cls, records: Iterable[AuditRecord], histories: ActionHistories, reach: AnchoredReach
    ) -> _AccountActions:
        actions = cls({}, {}, {}, histories, reach)
        for record in records:
            if record.kind in ACCOUNT_KINDS:
                actions._add(record)
        return actions

    def _add(self, record: AuditRecord) -> None:
        version = record.payload.get("status_version")
        if SEALED_FIELD in record.payload:
            self.sealed.setdefault(record.saga_id, record)
        elif record.kind == AuditKind.ACCOUNT_LIMIT_SET:
            self.limits.setdefault(record.saga_id, record)
        elif isinstance(version, int) and not isinstance(version, bool):
            self.statuses.setdefault((record.saga_id, record.kind, version), record)

    def status_problem(self, change: StatusChangeView, temporal: TemporalWitness) -> str | None:
        kind = STATUS_KINDS[change.status]
        record = self.statuses.get((change.account_id, kind, change.version))
        if record is None:
            return self._missing(change.account_id, kind, temporal)
        if record.payload.get("status") != change.status.value:
            return f"record {record.sequence} sets {record.payload.get('status')!r}"
        return self._action_problem(record, temporal)

    def limit_problem(self, account: AccountView, temporal: TemporalWitness) -> str | None:
        record = self.limits.get(account.account_id)
        if record is None:
            return self._missing(account.account_id, AuditKind.ACCOUNT_LIMIT_SET, temporal)
        granted = (record.payload.get("overdraft"), record.payload.get("currency"))
        if granted != (account.overdraft.amount_text(), account.currency):
            return f"record {record.sequence} granted {granted[0]} {granted[1]}"
        return self._action_problem(record, temporal)

    def _action_problem(self, record: AuditRecord, temporal: TemporalWitness) -> str | None:
        return action_problem(record, temporal, self.reach) or self.histories.problem(record)

    def _missing(self, account_id: str, kind: AuditKind, temporal: TemporalWitness) -> str | None:
        if awaiting_operator(account_id, temporal):
            return None
        sealed = self.sealed.get(account_id)
        if sealed is not None:
            return (
                f"record {sealed.sequence} of the account is sealed: set FUNDSAGA_PAYLOAD_KEYS "
                "to check which operator action made it"
            )
        return (
            f"no signed {kind} record of a verified operator names it: it was set behind the "
            "operator actions' back"
        )


def action_problem(
    record: AuditRecord, temporal: TemporalWitness, reach: AnchoredReach = NOTHING_ANCHORED
) -> str | None:
    """Why the record is no verified operator's action Temporal ran; None when it is one. A
    record Temporal cannot vouch for counts only when an audit anchor taken before the
    namespace's retention ended covers it (`reach`), never by the time it states."""
    try:
        VerifiedOperator.model_validate(record.payload.get("identity"))
    except ValidationError:
        return f"record {record.sequence} names no verified operator"
    action = record.dedupe_key
    if not action_on(action, record.saga_id):
        return f"record {record.sequence} names {action}, no operator action on the account"
    if not temporal.knows(action) and not reach.witnesses_past_retention(record):
        return (
            f"Temporal does not know {action}, the operator action record {record.sequence} "
            "names, and no audit anchor taken before the namespace's retention "
            f"({temporal.retention}) ended covers the record: a record written without the action"
        )
    return None
