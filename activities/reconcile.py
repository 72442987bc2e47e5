"""Applying an approved break resolution: the adjusting entry, if any, and the break closed;
and measuring a proposed adjustment against its break's difference."""

from __future__ import annotations

from pydantic import JsonValue
from temporalio import activity

from sagas.engine import (
    ADJUSTMENT_BOUND_ACTIVITY,
    RESOLVE_BREAK_ACTIVITY,
    Adjustment,
    AdjustmentBound,
    BreakResolutionCall,
    adjustment_entry_key,
    to_application_error,
)
from sagas.foundations import FundsagaError, InvalidRequestError, Money, parse_money
from sagas.ledger import Ledger
from sagas.reconcile import BreakStatus, BreakView, Reconciliation


class ReconcileActivities:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.reconciliation = Reconciliation(ledger, ())

    @activity.defn(name=ADJUSTMENT_BOUND_ACTIVITY)
    def adjustment_bound(self, call: BreakResolutionCall) -> AdjustmentBound:
        """The break's difference, and whether the proposed adjustment goes beyond it."""
        try:
            return bound_of(self.reconciliation.find_break(call.break_id), call.adjustment)
        except FundsagaError as err:
            raise to_application_error(err, activity.info().attempt) from err

    @activity.defn(name=RESOLVE_BREAK_ACTIVITY)
    def resolve_break(self, call: BreakResolutionCall) -> dict[str, JsonValue]:
        """Post the adjustment (once, keyed by the break) and mark the break resolved."""
        try:
            found = self.reconciliation.find_break(call.break_id)
            if found.status is BreakStatus.MATCHED:
                # Matched since it was proposed: an adjustment now would book it twice.
                raise InvalidRequestError("BREAK", f"break {call.break_id} matched since")
            if bound_of(found, call.adjustment).exceeds and not call.excess_approved_by:
                # The workflow asks a treasury operator first: only a call around it gets here.
                raise InvalidRequestError(
                    "adjustment", "beyond the break's difference, and no treasury approval"
                )
            entry_id = self._adjust(call)
            self.reconciliation.resolve(
                call.break_id, resolved_by=call.resolved_by, adjustment_entry_id=entry_id
            )
        except FundsagaError as err:
            raise to_application_error(err, activity.info().attempt) from err
        return {"entry_id": entry_id}

    def _adjust(self, call: BreakResolutionCall) -> int | None:
        adjustment = call.adjustment
        if adjustment is None:
            return None
        key = adjustment_entry_key(call.break_id)
        return self.ledger.adjust(key, adjustment.account_id, signed(adjustment)).entry_id


def signed(adjustment: Adjustment, field: str = "amount") -> Money:
    """The adjustment's amount: positive credits the account, negative debits it."""
    magnitude = parse_money(adjustment.amount.removeprefix("-"), adjustment.currency, field=field)
    return -magnitude if adjustment.amount.startswith("-") else magnitude


def bound_of(found: BreakView, adjustment: Adjustment | None) -> AdjustmentBound:
    """`adjustment` against the break's difference: beyond it when it moves more, or moves
    another currency, or the break has no one amount (a currency mismatch)."""
    difference = found.difference
    moved = None if adjustment is None else signed(adjustment, "adjustment")
    exceeds = moved is not None and (
        difference is None
        or moved.currency != difference.currency
        or abs(moved.minor) > difference.minor
    )
    return AdjustmentBound(
        difference=None if difference is None else str(difference), exceeds=exceeds
    )
