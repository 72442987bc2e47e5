"""Every line of an imported statement accounted for: new, already known (in which earlier
file) or refused with its reason. Each case counts the lines of its file itself (`<Ntry>`
elements, `:61:` lines, CSV rows), not through the importer, and compares."""

from __future__ import annotations

import csv
import io
import re
import uuid
from collections import Counter

import pytest
from sqlalchemy import func, select

from sagas.ledger import Ledger
from sagas.reconcile import (
    AccountingError,
    BreakKind,
    BreakStatus,
    CsvMapping,
    ImportResult,
    ReconcilePolicy,
    Reconciliation,
    StatementAccount,
    metadata,
    read_statement,
)
from tests.reconcile.camt_documents import NAMESPACE, entry

ROOTS = {"053": ("BkToCstmrStmt", "Stmt"), "052": ("BkToCstmrAcctRpt", "Rpt")}
ROOTS["054"] = ("BkToCstmrDbtCdtNtfctn", "Ntfctn")


def camt(entries: list[str], *, message: str = "053", ident: str = "S-1", copy: str = "") -> bytes:
    """A camt document of one report holding `entries`; `copy` its CpyDplctInd."""
    root, report = ROOTS[message]
    namespace = NAMESPACE.format(message=f"camt.{message}", version="08")
    indicator = f"<CpyDplctInd>{copy}</CpyDplctInd>" if copy else ""
    return (
        f'<?xml version="1.0"?><Document xmlns="{namespace}">'
        f"<{root}><GrpHdr><MsgId>{uuid.uuid4().hex}</MsgId>"
        "<CreDtTm>2026-11-03T23:59:59</CreDtTm></GrpHdr>"
        f"<{report}><Id>{ident}</Id><CreDtTm>2026-11-03T23:59:59</CreDtTm>{indicator}"
        "<Acct><Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy></Acct>"
        f"{''.join(entries)}</{report}></{root}></Document>"
    ).encode()


def unreferenced(amount: str, direction: str = "DBIT", end_to_end_id: str = "") -> str:
    """An entry with neither AcctSvcrRef nor NtryRef, as many banks send them."""
    return entry(amount=amount, direction=direction, references="", end_to_end_id=end_to_end_id)


def referenced(reference: str, amount: str, direction: str = "DBIT") -> str:
    return entry(
        amount=amount, direction=direction, references=f"<AcctSvcrRef>{reference}</AcctSvcrRef>"
    )


def entries_in(document: bytes) -> int:
    return document.count(b"<Ntry>")


def mt940_lines(document: bytes) -> int:
    return len(re.findall(rb"^:61:", document, re.M))


def csv_rows(document: bytes, delimiter: str) -> int:
    return len(list(csv.reader(io.StringIO(document.decode()), delimiter=delimiter))) - 1


@pytest.fixture
def books(ledger: Ledger) -> Reconciliation:
    return Reconciliation(ledger, [], ReconcilePolicy())


def load(
    books: Reconciliation, content: bytes, name: str, mapping: CsvMapping | None = None
) -> ImportResult:
    return books.import_statement(
        read_statement(content, csv_mapping=mapping),
        content,
        name=name,
        imported_by="t",
        action_id=f"statement-action-{uuid.uuid4().hex[:12]}",
    )


def kept_of(books: Reconciliation, file_id: int) -> int:
    table = metadata.tables["statement_line"]
    query = select(func.count()).select_from(table).where(table.c.file_id == file_id)
    with books.ledger.engine.connect() as connection:
        return connection.scalar(query) or 0


def accounted(books: Reconciliation, result: ImportResult, counted: int) -> StatementAccount:
    """The file's one statement, once its lines are all accounted for: as many read as the
    test counted, each new one kept with the file (a new file) and the sums closed."""
    (statement,) = result.statements
    assert statement.read == counted
    assert statement.new + statement.known + statement.refused == counted
    if result.new:
        assert kept_of(books, result.file_id) == statement.new
    return statement


def test_a_statement_sent_again_with_one_entry_added_keeps_that_entry(
    books: Reconciliation,
) -> None:
    monday = [unreferenced("250.00"), unreferenced("80.00", "CRDT"), unreferenced("12.00")]
    first = camt(monday)
    again = camt([*monday[:1], unreferenced("99.99"), *monday[1:]])

    one = accounted(books, load(books, first, "first.xml"), entries_in(first))
    two = accounted(books, result := load(books, again, "again.xml"), entries_in(again))

    assert (one.new, one.known) == (3, 0)
    assert (two.new, two.known, two.refused) == (1, 3, 0)
    assert two.known_in == Counter({result.file_id - 1: 3})
    assert two.file_names == {result.file_id - 1: "first.xml"}
    assert kept_of(books, result.file_id - 1) + kept_of(books, result.file_id) == 4


def test_the_same_reference_with_another_amount_is_refused_as_a_conflict_break(
    books: Reconciliation,
) -> None:
    original = camt([referenced("BNK-1", "100.00"), referenced("BNK-2", "5.00")])
    corrected = camt([referenced("BNK-1", "120.00"), referenced("BNK-2", "5.00")], copy="CORR")

    load(books, original, "original.xml")
    result = load(books, corrected, "corrected.xml")
    statement = accounted(books, result, entries_in(corrected))

    (conflict,) = books.breaks(kind=BreakKind.STATEMENT_CONFLICT)
    assert (statement.new, statement.known, statement.refused) == (0, 1, 1)
    assert statement.copy_indicator == "CORR"
    (refusal,) = statement.refusals
    assert (refusal.position, refusal.break_id) == (1, conflict.break_id)
    assert "100.00" in refusal.reason
    assert "120.00" in refusal.reason
    assert conflict.status is BreakStatus.OPEN
    assert conflict.reference == "BNK-1"
    assert conflict.statement_amount is not None
    assert conflict.statement_amount.minor == 12000


def test_a_conflict_imported_again_opens_no_second_break(books: Reconciliation) -> None:
    load(books, camt([referenced("BNK-1", "100.00")]), "original.xml")
    corrected = camt([referenced("BNK-1", "120.00")], copy="CORR")
    load(books, corrected, "corrected.xml")

    again = accounted(books, load(books, corrected, "corrected.xml"), entries_in(corrected))

    assert again.refused == 1
    assert len(books.breaks(kind=BreakKind.STATEMENT_CONFLICT)) == 1


MT940_WEEK = """\
:20:RABO
:25:NL91RABO0123456789
:28C:0/1
:60F:C261102EUR1000,00
{lines}:62F:C261106EUR1000,00
"""


def test_two_mt940_statements_with_the_same_20_and_28c_keep_each_others_lines(
    books: Reconciliation,
) -> None:
    week_one = MT940_WEEK.format(
        lines=":61:2611031103D25,00NTRFNONREF\n:86:Rent\n"
        ":61:2611041104C25,00NTRFNONREF\n:86:Refund\n"
    ).encode()
    week_two = MT940_WEEK.format(
        lines=":61:2611101110D25,00NTRFNONREF\n:86:Rent\n"
        ":61:2611111111C25,00NTRFNONREF\n:86:Refund\n"
    ).encode()

    one = accounted(books, load(books, week_one, "week1.sta"), mt940_lines(week_one))
    two = accounted(books, load(books, week_two, "week2.sta"), mt940_lines(week_two))

    assert read_statement(week_one).statement_id == read_statement(week_two).statement_id
    assert (one.new, two.new, two.known, two.refused) == (2, 2, 0, 0)


ING_EXPORT = """\
Datum;Naam;Af Bij;Bedrag;Mededelingen
20261103;Coffee;Af;2,50;Card
20261103;Coffee;Af;2,50;Card
20261103;Coffee;Af;2,50;Card
20261103;Salary;Bij;1000,00;November
20261104;Coffee;Af;2,50;Card
20261104;Coffee;Af;2,50;Card
"""
ING = CsvMapping(
    amount_column="Bedrag",
    booking_date_column="Datum",
    direction_column="Af Bij",
    debit_values=("Af",),
    credit_values=("Bij",),
    description_column="Mededelingen",
    date_format="%Y%m%d",
    delimiter=";",
    decimal_separator=",",
    account="NL20INGB0001234567",
    currency="EUR",
)


def test_a_csv_export_of_rows_that_look_alike_keeps_every_row(books: Reconciliation) -> None:
    export = ING_EXPORT.encode()
    later = (ING_EXPORT + "20261105;Coffee;Af;2,50;Card\n").encode()

    first = accounted(books, load(books, export, "ing.csv", ING), csv_rows(export, ";"))
    second = accounted(books, load(books, later, "ing2.csv", ING), csv_rows(later, ";"))

    assert (first.new, first.known) == (6, 0)
    assert (second.new, second.known, second.refused) == (1, 6, 0)


def test_the_same_file_again_is_known_line_by_line_in_itself(books: Reconciliation) -> None:
    document = camt([unreferenced("1.00"), unreferenced("1.00")])
    kept = load(books, document, "day.xml")

    again = load(books, document, "day.xml")
    statement = accounted(books, again, entries_in(document))

    assert again.new is False
    assert again.file_id == kept.file_id
    assert (statement.new, statement.known, statement.known_in) == (
        0,
        2,
        Counter({kept.file_id: 2}),
    )


def test_a_duplicate_copy_is_known_and_says_it_is_one(books: Reconciliation) -> None:
    lines = [referenced("BNK-1", "10.00"), unreferenced("3.00")]
    load(books, camt(lines), "day.xml")
    duplicate = camt(lines, copy="DUPL")

    statement = accounted(books, load(books, duplicate, "dupl.xml"), entries_in(duplicate))

    assert (statement.copy_indicator, statement.new, statement.known) == ("DUPL", 0, 2)


def test_intraday_reports_then_the_days_statement_add_only_what_they_lacked(
    books: Reconciliation,
) -> None:
    morning = camt([referenced("BNK-1", "10.00")], message="052", ident="R-1")
    noon = camt([unreferenced("4.00", end_to_end_id="E2E-2")], message="054", ident="N-1")
    day = camt(
        [
            referenced("BNK-1", "10.00"),
            unreferenced("4.00", end_to_end_id="E2E-2"),
            referenced("BNK-3", "7.00"),
        ]
    )

    one = load(books, morning, "morning.xml")
    two = load(books, noon, "noon.xml")
    statement = accounted(books, load(books, day, "day.xml"), entries_in(day))

    assert (statement.new, statement.known, statement.refused) == (1, 2, 0)
    assert statement.known_in == Counter({one.file_id: 1, two.file_id: 1})


def test_a_zero_amount_line_is_kept_marked_and_never_a_break(books: Reconciliation) -> None:
    document = camt([referenced("BNK-0", "0.00"), referenced("BNK-1", "5.00", "CRDT")])

    statement = accounted(books, load(books, document, "zero.xml"), entries_in(document))

    table = metadata.tables["statement_line"]
    with books.ledger.engine.connect() as connection:
        found = connection.execute(select(table.c.bank_reference, table.c.zero_amount))
        marks = {reference: bool(zero) for reference, zero in found}
    assert (statement.new, statement.zero_amount) == (2, 1)
    assert marks == {"BNK-0": True, "BNK-1": False}
    (only,) = books.breaks()  # the 5.00 credit's: no ledger movement explains it
    assert only.statement_amount is not None
    assert only.statement_amount.minor == 500


def test_sums_that_do_not_close_are_an_error() -> None:
    tally = StatementAccount(statement_id="S", account="A", copy_indicator=None, read=3, new=2)

    with pytest.raises(AccountingError, match="3 lines read, but 2 new"):
        tally.check()


def test_a_long_statement_sent_again_is_known_line_by_line(books: Reconciliation) -> None:
    """More lines than one lookup of known identities asks for."""
    entries = [unreferenced(f"{n}.00") for n in range(1, 1201)]
    load(books, camt(entries), "day.xml")
    again = camt([*entries, unreferenced("0.01")], copy="DUPL")

    statement = accounted(books, load(books, again, "again.xml"), entries_in(again))

    assert (statement.new, statement.known) == (1, 1200)


def test_an_import_whose_sums_do_not_close_keeps_nothing(
    books: Reconciliation, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An importer that loses a line on the way (played by the check's input losing one)."""
    checked = StatementAccount.check

    def losing_one(tally: StatementAccount) -> None:
        tally.new -= 1
        checked(tally)

    monkeypatch.setattr(StatementAccount, "check", losing_one)
    document = camt([unreferenced("1.00"), unreferenced("2.00")])

    with pytest.raises(AccountingError, match="2 lines read, but 1 new"):
        load(books, document, "day.xml")

    with books.ledger.engine.connect() as connection:
        files = connection.scalar(
            select(func.count()).select_from(metadata.tables["statement_file"])
        )
    assert files == 0
    assert kept_of(books, 1) == 0
