"""One saga's line in the compensation audit: its closing record judged against the ledger."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sagas.audit import AuditRecord
from sagas.engine import AuditKind, SagaStatus
from sagas.foundations import InvalidRequestError, Money, parse_money
from sagas.ledger import HoldStatus, Ledger

NOTHING_MOVED = "no money moved: no journal entry and no hold"


@dataclass(frozen=True)
class SagaAudit:
    """One saga's line in the report."""

    saga_id: str
    status: str
    recorded_at: datetime
    amount: str
    """What the ledger moved; when it moved no money, the amount requested, said to be not
    moved ("7.00 EUR requested, not moved"); never a word in place of an amount."""
    failed_step: str
    error: str
    compensations: str
    ledger_check: str
    finding: str | None
    saga_type: str = ""
    requested: str = ""
    """The amount the closing record's request names, as written ("" when it names none or
    its payload is sealed and this audit holds no payload key)."""


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def _recorded_amount(payload: dict[str, Any]) -> tuple[str, Money | None]:
    """The amount the record's input names, as written and, when it parses, as Money."""
    request = payload.get("input") or {}
    if not isinstance(request, dict) or "amount" not in request:
        return "", None
    amount, code = request.get("amount"), request.get("currency", "")
    text = f"{amount} {code}".strip()
    try:
        return text, parse_money(str(amount), str(code))
    except InvalidRequestError:
        return text, None


def ledger_amount(ledger: Ledger, saga_id: str) -> Money | None:
    """What the saga moved, from the ledger only: its holds, else its largest posting."""
    held = [h.amount for h in ledger.holds(saga_id=saga_id) if h.amount is not None]
    if held:
        return held[0]
    legs = [
        posting.amount
        for entry in ledger.entries(saga_id=saga_id)
        if entry.reverses_entry_id is None
        for posting in entry.postings
        if posting.amount.minor > 0
    ]
    return max(legs, key=lambda money: money.minor) if legs else None


def error_text(error_class: str, message: str) -> str:
    """The error as one line: its class once, then its message (which may start with it)."""
    if not error_class or message == error_class or message.startswith(f"{error_class}: "):
        return message
    return f"{error_class}: {message}" if message else error_class


def _shown_amount(moved: Money | None, requested: str) -> str:
    if moved is not None:
        return str(moved)
    return f"{requested} requested, not moved" if requested else ""


def _compensations(payload: dict[str, Any]) -> str:
    parts = []
    for comp in payload.get("compensations") or []:
        parts.append(f"{comp.get('step_name')}: {comp.get('result')} at {comp.get('at')}")
    return "; ".join(parts)


def _ledger_check(ledger: Ledger, saga_id: str, status: str) -> tuple[str, str | None]:
    net = ledger.net_effect(saga_id)
    every_hold = ledger.holds(saga_id=saga_id)
    held = [h for h in every_hold if h.status is HoldStatus.ACTIVE]
    effect = ", ".join(f"{account} {money}" for account, money in net.items())
    holds = ", ".join(f"hold {h.amount} on {h.account_id}" for h in held)
    outstanding = "; ".join(part for part in (effect, holds) if part)
    if not outstanding and not every_hold and not ledger.entries(saga_id=saga_id):
        return NOTHING_MOVED, None
    if not outstanding:
        return "net effect zero on every account", None
    if status == SagaStatus.COMPENSATED.value:
        return f"NOT undone: {outstanding}", f"{saga_id}: compensated but {outstanding} remains"
    return f"outstanding: {outstanding}", None


def _recovery_check(record: AuditRecord, status: str, check: str) -> tuple[str, str | None]:
    """A killed saga not recovered is a finding; a recovered one names its record and operators."""
    payload: dict[str, Any] = dict(record.payload)
    if record.kind == AuditKind.SAGA_KILLED:
        finding = (
            f"{record.saga_id}: killed ({_text(payload.get('closed_as'))}) and not recovered"
            f" (record {record.sequence}): {check}"
        )
        return f"KILLED, not recovered: {check}", finding
    if record.kind == AuditKind.SAGA_RECOVERED:
        recovery = payload.get("recovery") or {}
        who = [
            _text((recovery.get(role) or {}).get("operator"))
            for role in ("proposed_by", "approved_by")
        ]
        note = f"recovered {status} by record {record.sequence} (proposed by {who[0]}, "
        return f"{check}; {note}approved by {who[1]})", None
    return check, None


def _another_run(ledger: Ledger, record: AuditRecord, status: str) -> str | None:
    """For a REJECTED run, the run chain that holds its saga id in the ledger when that is
    another run's: the effects under the id are that run's, this one took none."""
    if status != SagaStatus.REJECTED.value:
        return None
    holder = ledger.claim_of(record.saga_id)
    return holder if holder is not None and holder != record.payload.get("run_id") else None


def audit_saga(ledger: Ledger, record: AuditRecord) -> SagaAudit:
    payload: dict[str, Any] = dict(record.payload)
    status = _text(payload.get("status"))
    holder = _another_run(ledger, record, status)
    if holder is not None:
        check = f"{NOTHING_MOVED} by this run; the ledger's effects under its id are run {holder}'s"
        finding = None
    else:
        check, finding = _ledger_check(ledger, record.saga_id, status)
    check, killed = _recovery_check(record, status, check)
    finding = finding or killed
    moved = None if holder is not None else ledger_amount(ledger, record.saga_id)
    recorded, recorded_money = _recorded_amount(payload)
    # Compared as money, not text: "2 EUR" in a request is the 2.00 EUR the ledger moved.
    if finding is None and moved is not None and recorded and recorded_money != moved:
        finding = (
            f"{record.saga_id}: record {record.sequence} says {recorded}, the ledger moved {moved}"
        )
    return SagaAudit(
        saga_id=record.saga_id,
        status=status,
        recorded_at=record.recorded_at,
        amount=_shown_amount(moved, recorded),
        failed_step=_text(payload.get("failed_step")),
        error=error_text(_text(payload.get("error_class")), _text(payload.get("error_message"))),
        compensations=_compensations(payload),
        ledger_check=check,
        finding=finding,
        saga_type=_text(payload.get("saga_type")),
        requested=recorded,
    )
