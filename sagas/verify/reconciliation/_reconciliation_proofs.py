"""The pack's proofs of cash, per account and currency: each statement's opening balance and
lines against its closing balance, its closing balance against the ledger's rail balance at its
end, and the unmatched items on each side that explain the difference."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

from sagas.reconcile import (
    PeriodStatement,
    ProofItem,
    ProofOfCash,
    RailMovement,
    ReconciliationPeriod,
)
from sagas.verify.evidence import timestamp
from sagas.verify.reconciliation._reconciliation_figures import account_proof
from sagas.verify.reconciliation._reconciliation_model import (
    AccountProof,
    ProofItemEvidence,
    StatementProof,
)

_Order = tuple[date, date, str, int, int]


def account_proofs(period: ReconciliationPeriod) -> list[AccountProof]:
    """Per account and currency, its statements' proofs in the order the statements chain: by
    closing day, opening day, statement id, import and place in the file."""
    statements = {(f.file_id, s.position): s for f in period.files for s in f.statements}
    groups: dict[tuple[str, str], list[tuple[_Order, StatementProof]]] = {}
    for proof in period.proofs:
        statement = statements[proof.file_id, proof.position]
        order = _order(statement, proof.file_id)
        shown = _statement_proof(proof, statement, period.movements)
        groups.setdefault((statement.account, statement.currency), []).append((order, shown))
    return [
        account_proof(account, currency, [shown for _, shown in sorted(found, key=_first)])
        for (account, currency), found in sorted(groups.items())
    ]


def _first(item: tuple[_Order, StatementProof]) -> _Order:
    return item[0]


def _order(statement: PeriodStatement, file_id: int) -> _Order:
    return (
        statement.closing_date or date.min,
        statement.opening_date or date.min,
        statement.statement_id,
        file_id,
        statement.position,
    )


def _statement_proof(
    proof: ProofOfCash, statement: PeriodStatement, movements: Mapping[int, RailMovement]
) -> StatementProof:
    def items(found: tuple[ProofItem, ...]) -> list[ProofItemEvidence]:
        return [_item(item, movements) for item in found]

    return StatementProof(
        file_id=proof.file_id,
        position=proof.position,
        statement_id=proof.statement_id,
        opening_date=_day(statement.opening_date),
        closing_date=_day(statement.closing_date),
        period_end=None if proof.period_end is None else timestamp(proof.period_end),
        opening=str(proof.opening),
        statement_lines=str(proof.statement_lines),
        closing=str(proof.closing),
        adds_up=proof.statement_adds_up,
        ledger_movements=str(proof.ledger_movements),
        ledger_balance=str(proof.ledger_balance),
        difference=str(proof.difference),
        explained=str(proof.explained),
        balances=proof.balances,
        reconciled=proof.reconciled,
        unmatched_lines=items(proof.unmatched_lines),
        unmatched_movements=items(proof.unmatched_movements),
        amount_differences=items(proof.amount_differences),
        charges=items(proof.charges),
    )


def _item(item: ProofItem, movements: Mapping[int, RailMovement]) -> ProofItemEvidence:
    movement = movements.get(item.item_id) if item.side == "ledger" else None
    return ProofItemEvidence(
        side=item.side,
        item_id=item.item_id,
        reference=item.reference,
        amount=str(item.amount),
        day=item.day.isoformat(),
        saga_id=None if movement is None else movement.saga_id,
    )


def _day(day: date | None) -> str | None:
    return None if day is None else day.isoformat()
