"""Applying an approved break resolution: the adjusting entry, if any, and the break closed."""

from __future__ import annotations

from pydantic import JsonValue
from temporalio import activity

from sagas.engine import (
    RESOLVE_BREAK_ACTIVITY,
    BreakResolutionCall,
    adjustment_entry_key,
    to_application_error,
)
from sagas.foundations import FundsagaError, InvalidRequestError, parse_money
from sagas.ledger import Ledger
from sagas.reconcile import BreakStatus, Reconciliation


class ReconcileActivities:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger
        self.reconciliation = Reconciliation(ledger, ())

    @activity.defn(name=RESOLVE_BREAK_ACTIVITY)
    def resolve_break(self, call: BreakResolutionCall) -> dict[str, JsonValue]:
        """Post the adjustment (once, keyed by the break) and mark the break resolved."""
        try:
            found = self.reconciliation.find_break(call.break_id)
            if found.status is BreakStatus.MATCHED:
                # Matched since it was proposed: an adjustment now would book it twice.
                raise InvalidRequestError("BREAK", f"break {call.break_id} matched since")
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
        magnitude = adjustment.amount.removeprefix("-")
        amount = parse_money(magnitude, adjustment.currency, field="amount")
        signed = -amount if adjustment.amount.startswith("-") else amount
        key = adjustment_entry_key(call.break_id)
        return self.ledger.adjust(key, adjustment.account_id, signed).entry_id
