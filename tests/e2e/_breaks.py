"""A reconciliation break to resolve: a statement credit of an amount no rail movement of the
ledger explains (`missing_in_ledger`, its difference that amount)."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sagas.ledger import Ledger
from sagas.reconcile import (
    BreakView,
    LineDirection,
    LineKind,
    Reconciliation,
    Statement,
    StatementFormat,
    StatementLine,
)
from tests.e2e.conftest import eur


def open_break(ledger: Ledger, amount: str) -> BreakView:
    reference = uuid.uuid4().hex[:12]
    today = datetime.now(UTC).date()
    line = StatementLine(
        bank_reference=f"BANK-{reference}",
        end_to_end_id=None,
        direction=LineDirection.CREDIT,
        amount=eur(amount),
        booking_date=today,
        value_date=today,
        kind=LineKind.RETURN,
    )
    statement = Statement(
        format=StatementFormat.CAMT053,
        statement_id=f"STMT-{reference}",
        account="DE00RAIL",
        currency="EUR",
        period_start=None,
        period_end=None,
        lines=(line,),
    )
    imported = Reconciliation(ledger, ()).import_statement(
        statement,
        reference.encode(),
        name=f"{reference}.xml",
        imported_by="test",
        action_id=f"statement-action-import-{reference}",
    )
    (opened,) = imported.run.opened
    return opened
