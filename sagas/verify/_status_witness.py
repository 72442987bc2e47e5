"""The witness of every account status change: the verified operator action that made it.

Only the `OperatorAction` workflow changes an account's status (workflows/operator_actions.py):
it verifies the operator, the worker applies the status, and the workflow writes the audit
record naming the verified operator and the status version the change took. So each change the
ledger recorded needs that signed record, of its kind (`account_frozen`, `account_unfrozen`,
`account_closed`), and, while Temporal must still hold it, the record's workflow. A change
without one is a finding whoever signed the change: the worker's key signs every change, and
its database role may call the ledger's own freeze or unfreeze.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pydantic import ValidationError

from sagas.audit import AuditRecord
from sagas.codec import SEALED_FIELD
from sagas.engine import AuditKind, VerifiedOperator
from sagas.ledger import AccountStatus, StatusChangeView
from sagas.verify._temporal_histories import TemporalWitness

STATUS_KINDS = {
    AccountStatus.FROZEN: AuditKind.ACCOUNT_FROZEN,
    AccountStatus.ACTIVE: AuditKind.ACCOUNT_UNFROZEN,
    AccountStatus.CLOSED: AuditKind.ACCOUNT_CLOSED,
}
ACCOUNT_ACTION_ID = "account-action-{account_id}-"
"""How the client names an account's operator action workflows (sagas.client): one under way
may not have written its record yet."""


def status_witness_findings(
    changes: Sequence[StatusChangeView],
    records: Iterable[AuditRecord],
    temporal: TemporalWitness,
) -> list[str]:
    """Each status change that no verified operator action witnesses, in account and version
    order; `records` are the audit trail's verified records. A change of an account with an
    operator action under way is not judged yet."""
    actions = _AccountActions.of(records)
    findings: list[str] = []
    for change in changes:
        if change.migrated:  # set before revision 0011 recorded changes: nothing to tie it to
            continue
        problem = actions.problem(change, temporal)
        if problem is not None:
            where = f"account {change.account_id!r} status change {change.version}"
            findings.append(f"{where} ({change.status}) has no operator action: {problem}")
    return findings


def awaiting_operator(change: StatusChangeView, temporal: TemporalWitness) -> bool:
    """Whether an operator action on the change's account is under way: its record follows."""
    prefix = ACCOUNT_ACTION_ID.format(account_id=change.account_id)
    return any(workflow.startswith(prefix) for workflow in temporal.in_flight)


@dataclass(frozen=True)
class _AccountActions:
    by_change: dict[tuple[str, str, int], AuditRecord]
    """The first record of each (account, kind, status version)."""
    sealed: dict[str, AuditRecord]
    """An account's first account action record whose payload this verifier cannot open."""

    @classmethod
    def of(cls, records: Iterable[AuditRecord]) -> _AccountActions:
        kinds = set(STATUS_KINDS.values())
        by_change: dict[tuple[str, str, int], AuditRecord] = {}
        sealed: dict[str, AuditRecord] = {}
        for record in records:
            if record.kind not in kinds:
                continue
            if SEALED_FIELD in record.payload:
                sealed.setdefault(record.saga_id, record)
                continue
            version = record.payload.get("status_version")
            if isinstance(version, int) and not isinstance(version, bool):
                by_change.setdefault((record.saga_id, record.kind, version), record)
        return cls(by_change, sealed)

    def problem(self, change: StatusChangeView, temporal: TemporalWitness) -> str | None:
        kind = STATUS_KINDS[change.status]
        record = self.by_change.get((change.account_id, kind, change.version))
        if record is None:
            return self._missing(change, kind, temporal)
        if record.payload.get("status") != change.status.value:
            return f"record {record.sequence} sets {record.payload.get('status')!r}"
        if _operator(record) is None:
            return f"record {record.sequence} names no verified operator"
        action = record.dedupe_key
        if not temporal.knows(action) and temporal.must_know(record.recorded_at):
            return (
                f"Temporal does not know {action}, the operator action record {record.sequence} "
                f"names, yet the record is younger than the namespace's retention "
                f"({temporal.retention}): a record written without the action"
            )
        return None

    def _missing(
        self, change: StatusChangeView, kind: AuditKind, temporal: TemporalWitness
    ) -> str | None:
        if awaiting_operator(change, temporal):
            return None
        sealed = self.sealed.get(change.account_id)
        if sealed is not None:
            return (
                f"record {sealed.sequence} of the account is sealed: set FUNDSAGA_PAYLOAD_KEYS "
                "to check which operator action made it"
            )
        return (
            f"no signed {kind} record of a verified operator names it: the status was set "
            "behind the operator actions' back"
        )


def _operator(record: AuditRecord) -> VerifiedOperator | None:
    try:
        return VerifiedOperator.model_validate(record.payload.get("identity"))
    except ValidationError:
        return None
