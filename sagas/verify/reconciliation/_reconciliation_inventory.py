"""The pack's statement inventory: each file as imported, with its import's signed record, and
each statement in it with every line at its place, its match or its breaks."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime

from pydantic import JsonValue

from sagas.foundations import Money
from sagas.reconcile import (
    LineMatch,
    PeriodFile,
    PeriodLine,
    PeriodStatement,
    PeriodTransaction,
)
from sagas.verify.evidence import signed_record, timestamp
from sagas.verify.reconciliation._reconciliation_figures import counts_of
from sagas.verify.reconciliation._reconciliation_model import (
    FileEvidence,
    LineEvidence,
    MatchEvidence,
    StatementEvidence,
    TransactionEvidence,
)
from sagas.verify.reconciliation._reconciliation_records import (
    ReadRecord,
    identity_of,
    stated_counts,
)


def file_evidence(file: PeriodFile, imports: Mapping[str, ReadRecord]) -> FileEvidence:
    """`imports`: each `statement_imported` record by the action it records."""
    imported = None if file.action_id is None else imports.get(file.action_id)
    readable = imported is not None and not imported.sealed
    return FileEvidence(
        file_id=file.file_id,
        name=file.name,
        sha256=file.sha256,
        format=file.format,
        imported_at=timestamp(file.imported_at),
        imported_by=file.imported_by,
        action_id=file.action_id,
        verified_importer=identity_of(imported.payload) if imported and readable else None,
        import_record=None if imported is None else signed_record(imported.record),
        statements=[
            _statement(statement, imported.payload if imported and readable else {})
            for statement in file.statements
        ],
    )


def _statement(statement: PeriodStatement, record: Mapping[str, JsonValue]) -> StatementEvidence:
    lines = [_line(line) for line in statement.lines]
    return StatementEvidence(
        position=statement.position,
        statement_id=statement.statement_id,
        account=statement.account,
        currency=statement.currency,
        period_start=_when(statement.period_start),
        period_end=_when(statement.period_end),
        opening=_amount(statement.opening),
        opening_date=_day(statement.opening_date),
        closing=_amount(statement.closing),
        closing_date=_day(statement.closing_date),
        counts=counts_of(statement.read, lines),
        stated_counts=stated_counts(record, statement.statement_id, statement.position),
        lines=lines,
        breaks=list(statement.break_ids),
    )


def _line(line: PeriodLine) -> LineEvidence:
    return LineEvidence(
        position=line.position,
        status=line.status.value,
        line_id=line.line_id,
        bank_reference=line.bank_reference,
        end_to_end_id=line.end_to_end_id,
        direction=None if line.direction is None else line.direction.value,
        kind=None if line.kind is None else line.kind.value,
        amount=_amount(line.amount),
        fee=_amount(line.fee),
        booking_date=_day(line.booking_date),
        value_date=_day(line.value_date),
        description=line.description,
        zero_amount=line.zero_amount,
        match=_match(line.match),
        breaks=list(line.break_ids),
        transactions=[_transaction(t) for t in line.transactions],
    )


def _transaction(transaction: PeriodTransaction) -> TransactionEvidence:
    return TransactionEvidence(
        transaction_id=transaction.transaction_id,
        position=transaction.position,
        end_to_end_id=transaction.end_to_end_id,
        amount=_amount(transaction.amount),
        return_reason=transaction.return_reason,
        match=_match(transaction.match),
        breaks=list(transaction.break_ids),
    )


def _match(match: LineMatch | None) -> MatchEvidence | None:
    if match is None:
        return None
    return MatchEvidence(entry_id=match.entry_id, saga_id=match.saga_id, method=match.method)


def _amount(money: Money | None) -> str | None:
    return None if money is None else str(money)


def _day(day: date | None) -> str | None:
    return None if day is None else day.isoformat()


def _when(at: datetime | None) -> str | None:
    return None if at is None else timestamp(at)
