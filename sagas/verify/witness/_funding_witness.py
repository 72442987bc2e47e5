"""The witness of an entry outside any saga: money created in the ledger needs a funding that
one verified operator proposed and another approved, as the signed audit trail records them
(workflows/operator_actions.py writes both records, each naming the operator's verified
identity), both for the same account and amount, and not recorded as expired unapproved. An
opening balance or adjustment posted straight to the ledger has none."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from sagas.audit import AuditRecord
from sagas.codec import SEALED_FIELD
from sagas.engine import AuditKind, VerifiedOperator, funding_of_entry
from sagas.foundations import InvalidRequestError, Money, parse_money
from sagas.ledger import EntryView

PROPOSALS = (AuditKind.FUNDING_PROPOSED, AuditKind.BREAK_RESOLUTION_PROPOSED)
APPROVALS = (AuditKind.FUNDING_APPROVED, AuditKind.BREAK_RESOLVED)
EXPIRIES = (AuditKind.FUNDING_EXPIRED, AuditKind.BREAK_RESOLUTION_EXPIRED)
WHAT_IS_FUNDED = ("account_id", "amount", "currency")
"""A break's resolution posts its adjustment under the funding id it is proposed and approved
as (`resolution_id`), so the same two records witness it."""


@dataclass(frozen=True)
class AuditedFundings:
    """The funding records of the audit trail, by funding id."""

    proposed: Mapping[str, AuditRecord]
    approved: Mapping[str, AuditRecord]
    expired: Mapping[str, AuditRecord]

    @classmethod
    def of(cls, records: Iterable[AuditRecord]) -> AuditedFundings:
        proposed: dict[str, AuditRecord] = {}
        approved: dict[str, AuditRecord] = {}
        expired: dict[str, AuditRecord] = {}
        for record in records:
            if record.kind in PROPOSALS:
                proposed.setdefault(record.saga_id, record)
            elif record.kind in APPROVALS:
                approved.setdefault(record.saga_id, record)
            elif record.kind in EXPIRIES:
                expired.setdefault(record.saga_id, record)
        return cls(proposed, approved, expired)

    def problem(self, entry: EntryView) -> str | None:
        """Why no audited funding witnesses `entry` (an entry with no saga); None if one does."""
        funding = funding_of_entry(entry.idempotency_key)
        if funding is None:
            return (
                f"a {entry.kind} entry of no saga and no funding: money nobody approved "
                "(an opening balance or adjustment posted straight to the ledger)"
            )
        approved = self.approved.get(funding)
        if approved is None:
            return f"no signed audit record says a verified operator approved {funding}"
        proposed = self.proposed.get(funding)
        for record in (approved, proposed):
            if record is not None and SEALED_FIELD in record.payload:
                return (
                    f"record {record.sequence} of {funding} is sealed: set FUNDSAGA_PAYLOAD_KEYS "
                    "to check who approved what"
                )
        return (
            _disagreement(entry, approved)
            or _same_principal(approved, proposed)
            or _other_proposal(approved, proposed)
            or self._expired(approved)
        )

    def _expired(self, approved: AuditRecord) -> str | None:
        expired = self.expired.get(approved.saga_id)
        if expired is None:
            return None
        return (
            f"record {expired.sequence} says {approved.saga_id} expired unapproved, yet record "
            f"{approved.sequence} approves it"
        )


def _other_proposal(approved: AuditRecord, proposed: AuditRecord | None) -> str | None:
    """Why the approval is not of what was proposed; None when both name the same funding."""
    if proposed is None:
        return None
    funded = [approved.payload.get(field) for field in WHAT_IS_FUNDED]
    asked = [proposed.payload.get(field) for field in WHAT_IS_FUNDED]
    if funded == asked:
        return None
    return (
        f"record {approved.sequence} approves {' '.join(map(str, funded[1:]))} into {funded[0]}, "
        f"but record {proposed.sequence} proposed {' '.join(map(str, asked[1:]))} into {asked[0]}"
    )


def _disagreement(entry: EntryView, approved: AuditRecord) -> str | None:
    payload: dict[str, Any] = dict(approved.payload)
    account = str(payload.get("account_id"))
    try:
        approved_amount: Money | None = parse_money(
            str(payload.get("amount")), str(payload.get("currency"))
        )
    except InvalidRequestError:
        approved_amount = None
    credited = [p.amount for p in entry.postings if p.account_id == account and p.amount.minor > 0]
    if approved_amount is None or credited != [approved_amount]:
        moved = ", ".join(f"{p.account_id} {p.amount}" for p in entry.postings)
        return (
            f"record {approved.sequence} approved {payload.get('amount')} "
            f"{payload.get('currency')} into {account}, the entry moves {moved}"
        )
    return None


def _same_principal(approved: AuditRecord, proposed: AuditRecord | None) -> str | None:
    checker = _operator(approved)
    maker = None if proposed is None else _operator(proposed)
    if checker is None:
        return f"record {approved.sequence} names no verified operator as its approver"
    if maker is None:
        return f"no signed audit record of a verified operator proposing {approved.saga_id}"
    if maker.same_principal(checker):
        return f"{approved.saga_id} was proposed and approved by the same operator"
    return None


def _operator(record: AuditRecord) -> VerifiedOperator | None:
    try:
        return VerifiedOperator.model_validate(record.payload.get("identity"))
    except ValidationError:
        return None
