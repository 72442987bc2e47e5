"""Reading a period of the reconciliation in one transaction: the statements whose days meet it,
shown whole (every line at its place, with its match or its breaks), the breaks about them or
about the ledger's rail movements of the period, and their proofs of cash."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from sqlalchemy import select
from sqlalchemy.orm import Session, defer

from sagas.foundations import Money, database_now
from sagas.reconcile._break_places import BreakPlaces, break_places
from sagas.reconcile._models import (
    BankStatementRow,
    BreakRow,
    RailMatch,
    RailTransactionMatch,
    StatementFile,
    StatementLineRow,
    StatementTransactionRow,
)
from sagas.reconcile._period_model import (
    LineMatch,
    LineStatus,
    PeriodBreak,
    PeriodFile,
    PeriodLine,
    PeriodScope,
    PeriodStatement,
    PeriodTransaction,
    ReconciliationPeriod,
)
from sagas.reconcile._period_statements import FiledStatement, filed_statements
from sagas.reconcile._proof import proofs_of_cash
from sagas.reconcile._reconciliation import Reconciliation
from sagas.reconcile._store import break_view
from sagas.reconcile.formats import LineDirection, LineKind
from sagas.reconcile.matching import RailMovement, rail_movements


def reconciliation_period(books: Reconciliation, scope: PeriodScope) -> ReconciliationPeriod:
    """The period `scope` of `books`, read in one transaction, as of the database's time."""
    movements = {m.entry_id: m for m in rail_movements(books.ledger, books.definitions)}
    with Session(books.ledger.engine) as session, session.begin():
        return _Reading(session, scope, movements).period()


class _Reading:
    def __init__(
        self, session: Session, scope: PeriodScope, movements: Mapping[int, RailMovement]
    ) -> None:
        self.session = session
        self.scope = scope
        self.movements = movements
        self.breaks = [
            (row, break_places(row.break_key))
            for row in session.scalars(select(BreakRow).order_by(BreakRow.break_id))
        ]
        self.of_line: dict[int, list[int]] = {}
        self.of_transaction: dict[int, list[int]] = {}
        self.of_balances: dict[int, list[int]] = {}
        """Statement (`bank_statement_id`): the breaks about its balances."""
        self.refused: dict[tuple[int, int, int], int] = {}
        """(File id, statement's place, line's place): the conflict that refused the line."""
        for row, places in self.breaks:
            if places.transaction_id is not None:
                self.of_transaction.setdefault(places.transaction_id, []).append(row.break_id)
            elif row.line_id is not None:
                self.of_line.setdefault(row.line_id, []).append(row.break_id)
            if places.refused_at is not None:
                self.refused[places.refused_at] = row.break_id
            for statement in places.statement_ids:
                self.of_balances.setdefault(statement, []).append(row.break_id)
        self.file_of: dict[int, int] = {
            row.bank_statement_id: row.file_id
            for row in session.execute(
                select(BankStatementRow.bank_statement_id, BankStatementRow.file_id)
            )
        }

    def period(self) -> ReconciliationPeriod:
        files = list(
            self.session.scalars(
                select(StatementFile)
                .options(defer(StatementFile.content))
                .order_by(StatementFile.file_id)
            )
        )
        by_file: dict[int, list[FiledStatement]] = {}
        for filed in filed_statements(self.session, files):
            if self._in_scope(filed):
                by_file.setdefault(filed.file_id, []).append(filed)
        statements = [s for stated in by_file.values() for s in stated]
        kept = [row for s in statements for row in s.kept]
        matches = self._matches(kept)
        shown = tuple(
            self._file(file, by_file[file.file_id], matches)
            for file in files
            if file.file_id in by_file
        )
        places = {(s.file_id, s.position) for s in statements}
        proofs = proofs_of_cash(self.session, self.movements.values())
        return ReconciliationPeriod(
            scope=self.scope,
            as_of=database_now(self.session.connection()),
            files=shown,
            breaks=tuple(self._register(statements, {r.line_id for r in kept})),
            proofs=tuple(p for p in proofs if (p.file_id, p.position) in places),
            movements=self.movements,
        )

    def _in_scope(self, filed: FiledStatement) -> bool:
        if not self.scope.holds_account(filed.account):
            return False
        days = _days(filed)
        return days is None or self.scope.meets(*days)

    def _matches(self, kept: Sequence[StatementLineRow]) -> _Matches:
        lines = {row.line_id for row in kept}
        transactions: dict[int, list[StatementTransactionRow]] = {}
        query = select(StatementTransactionRow).order_by(
            StatementTransactionRow.line_id, StatementTransactionRow.position
        )
        for row in self.session.scalars(query):
            if row.line_id in lines:
                transactions.setdefault(row.line_id, []).append(row)
        return _Matches(
            lines={r.line_id: r for r in self.session.scalars(select(RailMatch))},
            transactions={
                r.transaction_id: r for r in self.session.scalars(select(RailTransactionMatch))
            },
            transactions_of=transactions,
        )

    def _file(
        self, file: StatementFile, statements: Iterable[FiledStatement], matches: _Matches
    ) -> PeriodFile:
        return PeriodFile(
            file_id=file.file_id,
            name=file.name,
            sha256=file.sha256,
            format=file.format,
            imported_at=file.imported_at,
            imported_by=file.imported_by,
            action_id=file.action_id,
            statements=tuple(self._statement(filed, matches) for filed in statements),
        )

    def _statement(self, filed: FiledStatement, matches: _Matches) -> PeriodStatement:
        code = filed.currency
        refused = {
            position: found
            for (file_id, statement, position), found in self.refused.items()
            if (file_id, statement) == (filed.file_id, filed.position)
        }
        kept = {row.position + 1: self._line(row, matches) for row in filed.kept}
        refused_lines = {
            position: PeriodLine(position=position, status=LineStatus.REFUSED, break_ids=(found,))
            for position, found in refused.items()
            if position not in kept
        }
        places = set(range(1, filed.read + 1)) | set(kept) | set(refused_lines)
        lines = tuple(
            kept.get(n) or refused_lines.get(n) or PeriodLine(position=n, status=LineStatus.KNOWN)
            for n in sorted(places)
        )
        return PeriodStatement(
            position=filed.position,
            statement_id=filed.statement_id,
            account=filed.account,
            currency=code,
            period_start=filed.period_start,
            period_end=filed.period_end,
            opening=_money(filed.opening_minor, code),
            opening_date=filed.opening_date,
            closing=_money(filed.closing_minor, code),
            closing_date=filed.closing_date,
            read=filed.read,
            lines=lines,
            break_ids=tuple(self.of_balances.get(filed.bank_statement_id, ())),
        )

    def _line(self, row: StatementLineRow, matches: _Matches) -> PeriodLine:
        found = matches.lines.get(row.line_id)
        return PeriodLine(
            position=row.position + 1,
            status=LineStatus.NEW,
            line_id=row.line_id,
            bank_reference=row.bank_reference,
            end_to_end_id=row.end_to_end_id,
            direction=LineDirection(row.direction),
            kind=LineKind(row.kind),
            amount=Money.of(row.amount_minor, row.currency),
            fee=_money(row.fee_minor, row.currency),
            booking_date=row.booking_date,
            value_date=row.value_date,
            description=row.description,
            zero_amount=row.zero_amount,
            match=None if found is None else self._match(found.entry_id, found.method),
            break_ids=tuple(self.of_line.get(row.line_id, ())),
            transactions=tuple(
                self._transaction(t, matches, row.currency)
                for t in matches.transactions_of.get(row.line_id, [])
            ),
        )

    def _transaction(
        self, row: StatementTransactionRow, matches: _Matches, code: str
    ) -> PeriodTransaction:
        found = matches.transactions.get(row.transaction_id)
        return PeriodTransaction(
            transaction_id=row.transaction_id,
            position=row.position,
            end_to_end_id=row.end_to_end_id,
            amount=_money(row.amount_minor, code),
            return_reason=row.return_reason,
            match=None if found is None else self._match(found.entry_id, found.method),
            break_ids=tuple(self.of_transaction.get(row.transaction_id, ())),
        )

    def _match(self, entry_id: int, method: str) -> LineMatch:
        movement = self.movements.get(entry_id)
        saga_id = None if movement is None else movement.saga_id
        return LineMatch(entry_id=entry_id, saga_id=saga_id, method=method)

    def _register(
        self, statements: Sequence[FiledStatement], lines: set[int]
    ) -> Iterable[PeriodBreak]:
        unbounded = self.scope == PeriodScope()
        shown = _Shown(
            statements={s.bank_statement_id for s in statements},
            places={(s.file_id, s.position) for s in statements},
            lines=lines,
            currencies={s.currency for s in statements},
        )
        for row, places in self.breaks:
            if unbounded or self._about_period(row, places, shown):
                files = [self.file_of.get(s) for s in places.statement_ids]
                yield PeriodBreak(
                    view=break_view(row),
                    currency=row.currency,
                    transaction_id=places.transaction_id,
                    file_ids=tuple(
                        dict.fromkeys([*places.file_ids, *(f for f in files if f is not None)])
                    ),
                    opened_by_action=row.action_id,
                    closed_by_action=row.closed_by_action,
                )

    def _about_period(self, row: BreakRow, places: BreakPlaces, shown: _Shown) -> bool:
        refused_in = None if places.refused_at is None else places.refused_at[:2]
        if (
            row.line_id in shown.lines
            or refused_in in shown.places
            or shown.statements.intersection(places.statement_ids)
        ):
            return True
        movement = None if row.entry_id is None else self.movements.get(row.entry_id)
        if movement is None or row.line_id is not None:
            return False
        day = movement.booked_at.date()
        in_days = self.scope.meets(day, day)
        return in_days and (
            not self.scope.accounts or movement.amount.currency.code in shown.currencies
        )


@dataclass(frozen=True, kw_only=True)
class _Shown:
    """What the period shows, that a break may be about."""

    statements: set[int]
    """By `bank_statement_id`."""
    places: set[tuple[int, int]]
    """(File id, the statement's place in it)."""
    lines: set[int]
    currencies: set[str]


@dataclass(frozen=True, kw_only=True)
class _Matches:
    lines: dict[int, RailMatch]
    transactions: dict[int, RailTransactionMatch]
    transactions_of: dict[int, list[StatementTransactionRow]]
    """Line id: its transactions, in the rail's order."""


def _days(filed: FiledStatement) -> tuple[date, date] | None:
    """The days a statement covers: its period, else its balances' days, else its kept lines'
    booking days; None when it says none (it is then in every period)."""
    if filed.period_start is not None and filed.period_end is not None:
        return filed.period_start.date(), filed.period_end.date()
    if filed.opening_date is not None and filed.closing_date is not None:
        return filed.opening_date, filed.closing_date
    booked = sorted(row.booking_date for row in filed.kept)
    return (booked[0], booked[-1]) if booked else None


def _money(minor: int | None, code: str) -> Money | None:
    return None if minor is None else Money.of(minor, code)
