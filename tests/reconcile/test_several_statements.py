"""Files of several statements, as banks deliver them: an ING MT940 of three days, an ABN AMRO
MT940 of two accounts, a Swiss camt.053 of two accounts, a German camt.052 of three intraday
reports. Each statement is read, kept, accounted for, checked and chained on its own, the
statements of a file in its order. Lines are counted from the files' text (`:61:` lines,
booked `<Ntry>` elements per statement), not through the importer, and compared."""

from __future__ import annotations

import re
import uuid
from collections import Counter
from datetime import UTC, date, datetime

import pytest
from alembic import command
from sqlalchemy import Engine, column, func, insert, select, table, text
from sqlalchemy.exc import DBAPIError
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.statements import StatementActivities
from sagas.foundations import InvalidRequestError, Money, alembic_config, make_engine
from sagas.ledger import Ledger
from sagas.reconcile import (
    AccountingError,
    BreakKind,
    ImportResult,
    ReconcilePolicy,
    Reconciliation,
    StatementAccount,
    StatementCall,
    StatementFormat,
    StatementRules,
    StatementUpload,
    metadata,
    read_statement,
    read_statements,
)
from sagas.reconcile.formats import MAX_STATEMENTS
from tests.reconcile.fixture_files import FIXTURES
from tests.reconcile.schemas import schema_errors

ING_DAYS = (FIXTURES / "mt940_ing_three_days.sta").read_bytes()
ING_GAP = (FIXTURES / "mt940_ing_gap_after_day_two.sta").read_bytes()
ABN = (FIXTURES / "mt940_abn_two_accounts.sta").read_bytes()
CAMT053 = (FIXTURES / "camt053_two_accounts.xml").read_bytes()
CAMT052 = (FIXTURES / "camt052_intraday_reports.xml").read_bytes()
ING_ACCOUNT = "NL20INGB0001234567EUR"


def mt940_lines(document: bytes) -> list[int]:
    """The `:61:` lines of each statement (each `:20:` block) of the file."""
    blocks = re.split(rb"(?m)^(?=:20:)", document)[1:]
    return [len(re.findall(rb"(?m)^:61:", block)) for block in blocks]


def camt_lines(document: bytes, tag: str) -> list[int]:
    """The booked entries of each `Stmt` (`Rpt`) of the file: pending ones are no lines."""
    reports = document.split(f"<{tag}>".encode())[1:]
    booked = (b"<Sts>BOOK</Sts>", b"<Sts><Cd>BOOK</Cd></Sts>")
    return [sum(report.count(mark) for mark in booked) for report in reports]


@pytest.fixture
def books(ledger: Ledger) -> Reconciliation:
    return Reconciliation(ledger, [], ReconcilePolicy())


def load(books: Reconciliation, content: bytes, name: str, action_id: str = "") -> ImportResult:
    return books.import_statements(
        read_statements(content),
        content,
        name=name,
        imported_by="t",
        action_id=action_id or f"statement-action-{uuid.uuid4().hex[:12]}",
    )


def accounted(result: ImportResult, counted: list[int]) -> list[StatementAccount]:
    """The file's statements, once each statement's lines and the file's are accounted for:
    as many read as the test counted, each new, known or refused."""
    assert [s.read for s in result.statements] == counted
    assert [s.new + s.known + s.refused for s in result.statements] == counted
    assert [s.position for s in result.statements] == list(range(1, len(counted) + 1))
    assert result.lines == sum(counted)
    assert result.added_lines == sum(s.new for s in result.statements)
    return list(result.statements)


def kept_per_statement(engine: Engine, file_id: int) -> list[int]:
    """The lines kept with each statement of the file, in the file's order."""
    statements, lines = metadata.tables["bank_statement"], metadata.tables["statement_line"]
    query = (
        select(func.count(lines.c.line_id))
        .select_from(statements.outerjoin(lines))
        .where(statements.c.file_id == file_id)
        .group_by(statements.c.position)
        .order_by(statements.c.position)
    )
    with engine.connect() as connection:
        return list(connection.scalars(query))


def rows_of(engine: Engine, name: str) -> int:
    with engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(metadata.tables[name])) or 0


def eur(minor: int) -> Money:
    return Money.of(minor, "EUR")


@pytest.mark.parametrize(
    "data",
    [ING_DAYS, ING_DAYS.replace(b"\n", b"\r\n"), b"\xef\xbb\xbf" + ING_DAYS],
    ids=["lf", "crlf", "byte-order-mark"],
)
def test_an_mt940_file_of_three_days_reads_as_three_statements_in_order(data: bytes) -> None:
    read = read_statements(data)

    assert [s.statement_id for s in read] == [
        "P261102000000001/00000",
        "P261103000000001/00000",
        "P261104000000001/00000",
    ]
    assert {(s.format, s.account, s.currency) for s in read} == {
        (StatementFormat.MT940, ING_ACCOUNT, "EUR")
    }
    assert [len(s.lines) for s in read] == mt940_lines(ING_DAYS) == [2, 3, 1]
    closings = [s.closing.amount for s in read if s.closing is not None]
    openings = [s.opening.amount for s in read if s.opening is not None]
    assert openings[1:] == closings[:-1]
    # The envelope between two messages (`-}`, `{1:...}{4:`) is no text of a line.
    assert not any(
        "{1:" in line.description or "-}" in line.description for s in read for line in s.lines
    )


def test_each_statement_of_an_imported_file_is_accounted_for_chained_and_proven(
    books: Reconciliation,
) -> None:
    result = load(books, ING_DAYS, "ing-week.sta")

    statements = accounted(result, mt940_lines(ING_DAYS))

    assert [(s.new, s.known, s.refused) for s in statements] == [(2, 0, 0), (3, 0, 0), (1, 0, 0)]
    assert kept_per_statement(books.ledger.engine, result.file_id) == [2, 3, 1]
    assert books.breaks(kind=BreakKind.STATEMENT_GAP) == []
    assert books.breaks(kind=BreakKind.STATEMENT_UNBALANCED) == []
    proofs = books.proofs_of_cash()
    assert [(p.file_id, p.position, p.statement_id) for p in proofs] == [
        (result.file_id, n, s.statement_id) for n, s in enumerate(statements, 1)
    ]
    assert [p.statement_lines for p in proofs] == [eur(95000), eur(-15350), eur(-100000)]
    assert all(p.statement_adds_up for p in proofs)


def test_a_gap_between_the_second_and_third_statement_of_the_next_file_is_one_break(
    books: Reconciliation,
) -> None:
    load(books, ING_DAYS, "ing-week.sta")
    later = load(books, ING_GAP, "ing-next.sta")

    accounted(later, mt940_lines(ING_GAP))
    (gap,) = books.breaks(kind=BreakKind.STATEMENT_GAP)
    assert gap.reference == "P261109000000001/00000"
    assert "P261106000000001/00000" in gap.detail
    assert f"statement 2 of file {later.file_id}" in gap.detail
    assert f"statement 3 of file {later.file_id}" in gap.detail
    assert (gap.statement_amount, gap.ledger_amount) == (eur(470000), eur(475000))
    assert "a gap (-50.00 EUR)" in gap.detail
    assert books.breaks(kind=BreakKind.STATEMENT_UNBALANCED) == []


def test_an_mt940_file_of_two_accounts_keeps_each_statement_on_its_account(
    books: Reconciliation,
) -> None:
    result = load(books, ABN, "abn.sta")

    statements = accounted(result, mt940_lines(ABN))

    assert [(s.account, s.currency, s.new) for s in statements] == [
        ("417164300", "EUR", 3),
        ("417164319", "USD", 1),
    ]
    lines = metadata.tables["statement_line"]
    with books.ledger.engine.connect() as connection:
        counted = connection.execute(
            select(lines.c.account, func.count()).group_by(lines.c.account)
        )
        per_account = {account: count for account, count in counted}  # noqa: C416
    assert per_account == {"417164300": 3, "417164319": 1}
    proofs = books.proofs_of_cash()
    assert [(p.account, p.closing) for p in proofs] == [
        ("417164300", eur(1401580)),
        ("417164319", Money.of(175000, "USD")),
    ]
    assert all(p.statement_adds_up for p in proofs)
    assert books.breaks(kind=BreakKind.STATEMENT_GAP) == []


def test_a_camt053_of_two_statements_checks_each_statement_s_balances(
    books: Reconciliation,
) -> None:
    assert schema_errors(CAMT053, "camt.053.001.04") == []
    unbalanced = CAMT053.replace(b'<Amt Ccy="EUR">7650.00</Amt>', b'<Amt Ccy="EUR">7600.00</Amt>')

    result = load(books, CAMT053, "two-accounts.xml")
    off = load(books, unbalanced, "two-accounts-off.xml")

    statements = accounted(result, camt_lines(CAMT053, "Stmt"))
    assert [(s.account, s.currency, s.new) for s in statements] == [
        ("CH9300762011623852957", "CHF", 2),
        ("CH5604835012345678009", "EUR", 1),
    ]
    assert [(s.new, s.known) for s in accounted(off, camt_lines(unbalanced, "Stmt"))] == [
        (0, 2),
        (0, 1),
    ]
    (found,) = books.breaks(kind=BreakKind.STATEMENT_UNBALANCED)
    assert found.reference == "20261103375204000006011-2"
    assert f"statement 2 of file {off.file_id}" in found.detail
    assert (found.statement_amount, found.ledger_amount) == (eur(760000), eur(765000))


def test_a_camt052_of_three_reports_knows_an_entry_re_listed_by_a_later_report(
    books: Reconciliation,
) -> None:
    assert schema_errors(CAMT052, "camt.052.001.08") == []

    result = load(books, CAMT052, "intraday.xml")

    statements = accounted(result, camt_lines(CAMT052, "Rpt"))
    assert [s.format for s in read_statements(CAMT052)] == [StatementFormat.CAMT052] * 3
    assert [(s.account, s.new, s.known) for s in statements] == [
        ("DE89370400440532013000", 2, 0),
        ("DE89370400440532013000", 1, 2),
        ("DE02120300000000202051", 1, 0),
    ]
    assert statements[1].known_in == Counter({result.file_id: 2})
    assert kept_per_statement(books.ledger.engine, result.file_id) == [2, 1, 1]


def test_a_file_of_several_statements_delivered_again_adds_nothing(
    books: Reconciliation,
) -> None:
    first = load(books, ING_DAYS, "ing-week.sta")
    breaks = len(books.breaks())

    again = load(books, ING_DAYS, "ing-week (1).sta")

    statements = accounted(again, mt940_lines(ING_DAYS))
    assert (again.new, again.file_id, again.added_lines) == (False, first.file_id, 0)
    assert [(s.known, s.known_in) for s in statements] == [
        (n, Counter({first.file_id: n})) for n in mt940_lines(ING_DAYS)
    ]
    assert rows_of(books.ledger.engine, "bank_statement") == 3
    assert rows_of(books.ledger.engine, "statement_line") == sum(mt940_lines(ING_DAYS))
    assert len(books.breaks()) == breaks


def test_a_retried_import_of_several_statements_finds_them_kept_by_itself(
    books: Reconciliation,
) -> None:
    action_id = f"statement-action-{uuid.uuid4().hex[:12]}"
    load(books, ING_DAYS, "ing-week.sta", action_id)

    retried = load(books, ING_DAYS, "ing-week.sta", action_id)

    statements = accounted(retried, mt940_lines(ING_DAYS))
    assert retried.new is True
    assert [(s.new, s.known) for s in statements] == [(2, 0), (3, 0), (1, 0)]
    assert rows_of(books.ledger.engine, "statement_line") == sum(mt940_lines(ING_DAYS))


def test_a_file_read_now_as_other_statements_than_it_was_kept_as_is_refused(
    books: Reconciliation,
) -> None:
    """A reader that changed since the file was kept (played by keeping two of its three)."""
    statements = read_statements(ING_DAYS)
    kept = books.import_statements(
        statements[:2], ING_DAYS, name="ing-week.sta", imported_by="t", action_id="a-1"
    )

    with pytest.raises(InvalidRequestError) as raised:
        load(books, ING_DAYS, "ing-week.sta")

    assert raised.value.field == "FILE"
    assert f"file {kept.file_id} (ing-week.sta) of 2 statement(s)" in raised.value.problem
    assert "reads now as 3" in raised.value.problem
    assert rows_of(books.ledger.engine, "statement_line") == sum(mt940_lines(ING_DAYS)[:2])


def test_a_file_of_more_statements_than_a_record_lists_is_refused_with_nothing_kept(
    books: Reconciliation,
) -> None:
    (day, *_) = read_statements(ING_DAYS)
    many = [day] * (MAX_STATEMENTS + 1)

    with pytest.raises(InvalidRequestError) as raised:
        books.import_statements(many, b"many", name="many.sta", imported_by="t", action_id="a")

    assert raised.value.field == "FILE"
    assert f"holds {MAX_STATEMENTS + 1} statements" in raised.value.problem
    assert rows_of(books.ledger.engine, "statement_file") == 0


BAD_SECOND = [
    pytest.param(
        ING_DAYS.replace(b"D75,50NTRFEREF//ING-0301", b"D75,505NTRFEREF//ING-0301"),
        ":61:[1] amount of statement 2",
        id="mt940-amount",
    ),
    pytest.param(
        ING_DAYS.replace(b":62F:C261103EUR5796,50\n", b""),
        ":62F: of statement 2",
        id="mt940-closing-balance",
    ),
    pytest.param(
        CAMT053.replace(
            b'<Amt Ccy="EUR">350.00</Amt>\n        <CdtDbtInd>DBIT</CdtDbtInd>\n        <Sts>',
            b'<Amt Ccy="EUR">350.005</Amt>\n        <CdtDbtInd>DBIT</CdtDbtInd>\n        <Sts>',
        ),
        "Stmt[2]/Ntry[1]/Amt",
        id="camt-amount",
    ),
]


@pytest.mark.parametrize(("data", "field"), BAD_SECOND)
def test_a_bad_field_of_the_second_statement_refuses_the_file_naming_statement_2(
    ledger: Ledger, data: bytes, field: str
) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        read_statements(data)
    assert raised.value.field == field

    activities = StatementActivities(ledger, [], StatementRules())
    call = StatementCall(
        action_id=f"statement-action-{uuid.uuid4().hex[:12]}",
        operator="op",
        upload=StatementUpload.of(data, "bad.sta", None),
    )
    with pytest.raises(ApplicationError) as refused:
        ActivityEnvironment().run(activities.import_statement, call)

    assert field in refused.value.message
    assert refused.value.non_retryable
    for name in ("statement_file", "bank_statement", "statement_line"):
        assert rows_of(ledger.engine, name) == 0


def test_a_second_statement_that_does_not_add_up_keeps_nothing_of_the_first(
    books: Reconciliation, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An importer that loses a line of the second statement (played by its check's input
    losing one): the first statement, already written in the transaction, goes too."""
    checked = StatementAccount.check

    def losing_one_of_the_second(tally: StatementAccount) -> None:
        tally.new -= tally.position == 2
        checked(tally)

    monkeypatch.setattr(StatementAccount, "check", losing_one_of_the_second)

    with pytest.raises(AccountingError, match="3 lines read, but 2 new"):
        load(books, ING_DAYS, "ing-week.sta")

    for name in ("statement_file", "bank_statement", "statement_line", "reconciliation_break"):
        assert rows_of(books.ledger.engine, name) == 0


@pytest.mark.parametrize(
    ("data", "lines"),
    [(ING_DAYS, sum(mt940_lines(ING_DAYS))), (CAMT053, sum(camt_lines(CAMT053, "Stmt")))],
    ids=["mt940", "camt"],
)
def test_the_line_limit_counts_the_lines_of_every_statement_of_the_file(
    data: bytes, lines: int
) -> None:
    assert sum(len(s.lines) for s in read_statements(data, max_lines=lines)) == lines
    with pytest.raises(InvalidRequestError) as raised:
        read_statements(data, max_lines=lines - 1)

    assert "FUNDSAGA_STATEMENT_MAX_LINES" in raised.value.problem


def test_read_statement_still_reads_a_file_of_one_statement() -> None:
    (first, *_) = re.split(rb"(?m)^(?=\{1:)", ING_DAYS)[1:]

    assert read_statement(first) == read_statements(ING_DAYS)[0]


BEFORE = "2026_11_28_0018"


def _keep_as_0018_did(engine: Engine) -> None:
    """Two files as an import before revision 0019 kept them: the ING statement of the day
    before the three-day file (closing where it opens), and a camt.054 without balances."""
    day = date(2026, 11, 1)
    file = {
        "format": "mt940",
        "account": ING_ACCOUNT,
        "currency": "EUR",
        "period_start": None,
        "period_end": None,
        "content": b"as kept",
        "imported_at": datetime(2026, 11, 2, 6, tzinfo=UTC),
        "imported_by": "t",
        "action_id": "statement-action-before",
        "opening_minor": None,
        "opening_date": None,
        "closing_minor": None,
        "closing_date": None,
        "line_count": 1,
    }
    line = {
        "position": 0,
        "account": ING_ACCOUNT,
        "occurrence": 1,
        "zero_amount": False,
        "end_to_end_id": None,
        "direction": "debit",
        "kind": "payout",
        "currency": "EUR",
        "fee_minor": None,
        "booking_date": day,
        "value_date": day,
        "description": "",
        "action_id": "statement-action-before",
    }
    kept_files: list[dict[str, object]] = [
        {
            **file,
            "file_id": 1,
            "sha256": "1" * 64,
            "name": "ing-1101.sta",
            "statement_id": "P261101000000001/00000",
            "opening_minor": 510000,
            "opening_date": date(2026, 10, 31),
            "closing_minor": 500000,
            "closing_date": day,
        },
        {
            **file,
            "file_id": 2,
            "sha256": "2" * 64,
            "format": "camt.054",
            "name": "notice.xml",
            "statement_id": "NTF-1",
        },
    ]
    kept_lines: list[dict[str, object]] = [
        {**line, "line_id": 1, "file_id": 1, "amount_minor": 10000, **_legacy("ING-0101")},
        {**line, "line_id": 2, "file_id": 2, "amount_minor": 700, **_legacy("NTF-0001")},
    ]
    kept: list[tuple[str, str, list[dict[str, object]]]] = [
        ("statement_file", "file_id", kept_files),
        ("statement_line", "line_id", kept_lines),
    ]
    with engine.begin() as connection:
        for name, key, rows in kept:
            # The table as it was at revision 0018: the columns these rows hold.
            types = metadata.tables[name].c
            then = table(name, *(column(c, types[c].type) for c in rows[0]))
            connection.execute(insert(then), rows)
            if connection.dialect.name == "postgresql":  # the rows came with their ids
                serial = f"pg_get_serial_sequence('{name}', '{key}')"
                connection.execute(text(f"SELECT setval({serial}, {len(rows)})"))


def _legacy(reference: str) -> dict[str, str]:
    return {"bank_reference": reference, "identity": f"legacy:{reference}"}


# The migration's DDL differs by database: its PostgreSQL case stays in the fast tier.
@pytest.mark.databases_differ
def test_the_migration_makes_each_file_kept_before_its_one_statement(
    database_url: str, database_owner_url: str
) -> None:
    config = alembic_config(database_owner_url)
    command.downgrade(config, BEFORE)
    owner = make_engine(database_owner_url)
    try:
        _keep_as_0018_did(owner)
        command.upgrade(config, "head")
        statements, lines = metadata.tables["bank_statement"], metadata.tables["statement_line"]
        with owner.connect() as connection:
            kept = connection.execute(
                select(
                    statements.c.bank_statement_id,
                    statements.c.file_id,
                    statements.c.position,
                    statements.c.statement_id,
                    statements.c.opening_minor,
                    statements.c.closing_minor,
                    statements.c.line_count,
                    statements.c.action_id,
                ).order_by(statements.c.file_id)
            ).all()
            owned = connection.execute(
                select(lines.c.line_id, lines.c.bank_statement_id).order_by(lines.c.line_id)
            ).all()
        assert [tuple(row) for row in kept] == [
            (1, 1, 0, "P261101000000001/00000", 510000, 500000, 1, "statement-action-before"),
            (2, 2, 0, "NTF-1", None, None, 1, "statement-action-before"),
        ]
        assert [tuple(row) for row in owned] == [(1, 1), (2, 2)]
        for name in ("statement_line", "bank_statement"):
            with pytest.raises(DBAPIError, match="immutable"), owner.begin() as connection:
                connection.execute(text(f"UPDATE {name} SET position = position"))

        command.downgrade(config, BEFORE)
        command.upgrade(config, "head")
    finally:
        owner.dispose()

    ledger = Ledger.from_url(database_url)
    try:
        books = Reconciliation(ledger, [], ReconcilePolicy())
        result = load(books, ING_DAYS, "ing-week.sta")
        assert result.file_id == 3
        assert books.breaks(kind=BreakKind.STATEMENT_GAP) == []
        proofs = books.proofs_of_cash()
        assert [(p.file_id, p.position) for p in proofs] == [(1, 1), (3, 1), (3, 2), (3, 3)]
        assert proofs[0].statement_lines == eur(-10000)
        assert all(p.statement_adds_up for p in proofs)
        with pytest.raises(RuntimeError, match="several statements"):
            command.downgrade(config, BEFORE)
    finally:
        ledger.engine.dispose()
