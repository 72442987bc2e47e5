"""What the reconciliation pack reads from signed audit records: who acted on a break and with
which note of their own, and how an import counted a statement's lines. The pack is made and
checked offline by this same code, so an act or a count that disagrees with its record was
changed."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from pydantic import JsonValue

from sagas.audit import AuditRecord
from sagas.codec import SEALED_FIELD
from sagas.engine import AuditKind
from sagas.verify.reconciliation._reconciliation_model import LineCounts, OperatorIdentity

ACTS = {
    AuditKind.BREAK_EXPLAINED.value: "explained",
    AuditKind.BREAK_RESOLUTION_PROPOSED.value: "proposed",
    AuditKind.BREAK_EXCESS_APPROVED.value: "excess_approved",
    AuditKind.BREAK_RESOLVED.value: "approved",
    AuditKind.BREAK_RESOLUTION_EXPIRED.value: "expired",
}
"""A break's audit kinds, and the act each records."""
OWN_FACTS = {
    AuditKind.BREAK_EXCESS_APPROVED.value: "excess_approved_by",
    AuditKind.BREAK_RESOLVED.value: "approved_by",
}
"""Where a record names the operator whose act it is with their own note; a record written
before it did names them at its top and keeps the proposer's note only."""
NOTED_BY_THEIR_OPERATOR = frozenset(
    {AuditKind.BREAK_EXPLAINED.value, AuditKind.BREAK_RESOLUTION_PROPOSED.value}
)


@dataclass(frozen=True)
class ReadRecord:
    """A record as stored (signed), and its payload opened where the payload keys allow."""

    record: AuditRecord
    payload: Mapping[str, JsonValue]

    @property
    def sealed(self) -> bool:
        return SEALED_FIELD in self.payload


@dataclass(frozen=True, kw_only=True)
class ActFacts:
    operator: OperatorIdentity | None
    note: str | None
    evidence: str | None


def act_facts(kind: str, payload: Mapping[str, JsonValue]) -> ActFacts:
    """Who took the act a break's record of `kind` records, and their own note."""
    evidence = _text(payload.get("evidence")) if kind == AuditKind.BREAK_EXPLAINED else None
    own = payload.get(OWN_FACTS.get(kind, ""))
    if isinstance(own, dict):
        return ActFacts(operator=identity_of(own), note=_text(own.get("note")), evidence=evidence)
    note = _text(payload.get("note")) if kind in NOTED_BY_THEIR_OPERATOR else None
    return ActFacts(operator=identity_of(payload), note=note, evidence=evidence)


def identity_of(facts: Mapping[str, JsonValue]) -> OperatorIdentity | None:
    """The operator a record's facts name, with the identity the worker verified."""
    name = facts.get("operator")
    if not isinstance(name, str):
        return None
    identity = facts.get("identity")
    verified = identity if isinstance(identity, dict) else {}
    return OperatorIdentity(
        operator=name,
        issuer=_text(verified.get("issuer")),
        subject=_text(verified.get("subject")),
    )


def stated_counts(
    payload: Mapping[str, JsonValue], statement_id: str, position: int
) -> LineCounts | None:
    """How an import's record counts the lines of the statement `statement_id` at `position` in
    its file (a record written before files held several states no position: its one
    statement's is 1); None when it does not."""
    statements = payload.get("statements")
    for stated in statements if isinstance(statements, list) else []:
        if (
            isinstance(stated, dict)
            and stated.get("statement_id") == statement_id
            and stated.get("position", 1) == position
        ):
            counts = {what: stated.get(what) for what in ("read", "new", "known", "refused")}
            if all(type(count) is int for count in counts.values()):
                return LineCounts.model_validate(counts)
    return None


def _text(value: JsonValue) -> str | None:
    return value if isinstance(value, str) else None
