"""A matched line valued too far from its movement's booking, where its rule requires the value
date to agree (`require = ["value_date"]`): a finding even when its end-to-end id matched."""

from __future__ import annotations

from sagas.reconcile.matching._booked import BookedLine, BookedTransaction, Finding
from sagas.reconcile.matching._breaks import BreakKind
from sagas.reconcile.matching._matching_rules import MatchingRule, Requirement
from sagas.reconcile.matching._movements import RailMovement


def value_date_finding(
    line: BookedLine,
    movement: RailMovement,
    rule: MatchingRule,
    transaction: BookedTransaction | None = None,
) -> Finding | None:
    if not rule.requires(Requirement.VALUE_DATE):
        return None
    booked = movement.booked_at.date()
    if abs(booked - line.value_date) <= rule.date_tolerance:
        return None
    what = "the statement" if transaction is None else f"transaction {transaction.position}"
    detail = (
        f"the ledger booked entry {movement.entry_id} on {booked}, {what} values it "
        f"{line.value_date}: more than {rule.date_tolerance.days} day(s) apart"
    )
    return Finding(
        kind=BreakKind.VALUE_DATE_MISMATCH,
        currency=line.currency,
        detail=detail,
        line_id=line.line_id,
        entry_id=movement.entry_id,
        reference=movement.reference,
        transaction_id=None if transaction is None else transaction.transaction_id,
    )
