"""The pack's break register: each break of the period with its age by the database's clock,
each operator's act on it from its signed record (the verified operator and their own note),
and the adjusting entry its resolution posted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from sagas.engine import adjustment_entry_key
from sagas.ledger import Ledger
from sagas.reconcile import PeriodBreak, RailMovement
from sagas.verify.evidence import signed_record, timestamp
from sagas.verify.reconciliation._reconciliation_figures import age_seconds
from sagas.verify.reconciliation._reconciliation_model import (
    AdjustingEntry,
    BreakAct,
    BreakEvidence,
    PostingLeg,
)
from sagas.verify.reconciliation._reconciliation_records import (
    ACTS,
    ActFacts,
    ReadRecord,
    act_facts,
)


def break_evidence(
    found: PeriodBreak,
    as_of: datetime,
    records: Sequence[ReadRecord],
    ledger: Ledger,
    movements: Mapping[int, RailMovement],
) -> BreakEvidence:
    """`records`: the break's own records (its acts), oldest first."""
    view = found.view
    movement = None if view.entry_id is None else movements.get(view.entry_id)
    opened_at = timestamp(view.opened_at)
    closed_at = None if found.closed_at is None else timestamp(found.closed_at)
    return BreakEvidence(
        break_id=view.break_id,
        kind=view.kind.value,
        status=view.status.value,
        reference=view.reference,
        line_id=view.line_id,
        entry_id=view.entry_id,
        saga_id=None if movement is None else movement.saga_id,
        transaction_id=found.transaction_id,
        files=list(found.file_ids),
        currency=found.currency,
        ledger_amount=None if view.ledger_amount is None else str(view.ledger_amount),
        statement_amount=None if view.statement_amount is None else str(view.statement_amount),
        difference=None if view.difference is None else str(view.difference),
        detail=view.detail,
        opened_at=opened_at,
        closed_at=closed_at,
        age_seconds=age_seconds(opened_at, closed_at, timestamp(as_of)),
        opened_by_action=found.opened_by_action,
        closed_by_action=found.closed_by_action,
        acts=[_act(read) for read in records],
        adjustment=_adjusting(ledger, found),
    )


def _act(read: ReadRecord) -> BreakAct:
    record = read.record
    facts = ActFacts(operator=None, note=None, evidence=None)
    if not read.sealed:
        facts = act_facts(record.kind, read.payload)
    return BreakAct(
        act=ACTS[record.kind],
        at=timestamp(record.recorded_at),
        operator=facts.operator,
        note=facts.note,
        evidence=facts.evidence,
        record=signed_record(record),
    )


def _adjusting(ledger: Ledger, found: PeriodBreak) -> AdjustingEntry | None:
    """The entry the break's resolution posted, found by its key (the break's); None when the
    break names none, or the ledger holds none under that key."""
    if found.view.adjustment_entry_id is None:
        return None
    entry = ledger.entry(adjustment_entry_key(found.view.break_id))
    if entry is None:
        return None
    return AdjustingEntry(
        entry_id=entry.entry_id,
        idempotency_key=entry.idempotency_key,
        entry_hash=entry.entry_hash,
        created_at=timestamp(entry.created_at),
        postings=[
            PostingLeg(account_id=p.account_id, amount=str(p.amount)) for p in entry.postings
        ],
    )
