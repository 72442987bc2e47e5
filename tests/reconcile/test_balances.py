"""Statement balances: read from camt `Bal` and MT940 :60F:/:60M:/:62F:/:62M:/:64:, refused in
another currency than the statement's, checked (opening + lines = closing; one statement's
closing is the next one's opening) and proven against the ledger's rail movements."""

from __future__ import annotations

from dataclasses import replace
from datetime import date

import pytest

from sagas.foundations import InvalidRequestError, Money
from sagas.reconcile import Balance, BreakKind, Reconciliation, Statement, read_statement
from tests.reconcile.test_matching import books, line, load, sent, settle, statement

__all__ = ["books"]

_CAMT02 = "urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"


def _bal(kind: str, amount: str, currency: str = "EUR", mark: str = "CRDT") -> str:
    return (
        f"<Bal><Tp><CdOrPrtry><Cd>{kind}</Cd></CdOrPrtry></Tp>"
        f'<Amt Ccy="{currency}">{amount}</Amt><CdtDbtInd>{mark}</CdtDbtInd>'
        "<Dt><Dt>2026-11-05</Dt></Dt></Bal>"
    )


def _camt(balances: str, entries: str = "", ccy: str = "<Ccy>EUR</Ccy>") -> bytes:
    """A savings bank's camt.053.001.02: PRCD and CLBD, the account with or without Ccy."""
    return (
        f'<?xml version="1.0" encoding="UTF-8"?><Document xmlns="{_CAMT02}"><BkToCstmrStmt>'
        "<GrpHdr><MsgId>052611050001</MsgId><CreDtTm>2026-11-05T22:10:00+01:00</CreDtTm></GrpHdr>"
        "<Stmt><Id>0526110500001</Id><ElctrncSeqNb>214</ElctrncSeqNb>"
        "<CreDtTm>2026-11-05T22:10:00+01:00</CreDtTm>"
        f"<Acct><Id><IBAN>DE02500105170137075030</IBAN></Id>{ccy}</Acct>"
        f"{balances}{entries}</Stmt></BkToCstmrStmt></Document>"
    ).encode()


_ENTRY = (
    '<Ntry><Amt Ccy="EUR">42.10</Amt><CdtDbtInd>DBIT</CdtDbtInd><Sts>BOOK</Sts>'
    "<BookgDt><Dt>2026-11-05</Dt></BookgDt><ValDt><Dt>2026-11-05</Dt></ValDt>"
    "<AcctSvcrRef>2026110500417</AcctSvcrRef><BkTxCd><Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd>"
    "<SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn></BkTxCd><NtryDtls><TxDtls><Refs>"
    "<EndToEndId>INV-7731</EndToEndId></Refs></TxDtls></NtryDtls></Ntry>"
)

_MT940 = """\
:20:940S261105
:25:NL69INGB0123456789
:28C:00311/00001
:60F:C261104EUR2500,00
:61:2611051105D120,00NTRFINV-7731//8841-0013
:86:/EREF/INV-7731/REMI/Invoice 7731
:62F:C261105EUR{closing}
:64:C261105EUR2380,00
"""


def _eur(minor: int) -> Money:
    return Money.of(minor, "EUR")


def test_camt_previous_closing_and_closing_booked_are_the_balances() -> None:
    read = read_statement(_camt(_bal("PRCD", "300.00") + _bal("CLBD", "257.90"), _ENTRY))

    assert read.opening is not None
    assert read.closing is not None
    assert (read.opening.amount, read.opening.day) == (_eur(30000), date(2026, 11, 5))
    assert read.closing.amount == _eur(25790)


def test_camt_debit_balance_is_below_zero_and_available_balance_is_checked_only() -> None:
    balances = _bal("OPBD", "12.00", mark="DBIT") + _bal("CLBD", "54.10", mark="DBIT")
    read = read_statement(_camt(balances + _bal("CLAV", "945.90"), _ENTRY))

    assert read.opening is not None
    assert read.closing is not None
    assert (read.opening.amount, read.closing.amount) == (_eur(-1200), _eur(-5410))


def test_camt_opening_in_eur_and_closing_in_sek_is_refused_naming_the_field() -> None:
    data = _camt(_bal("OPBD", "300.00") + _bal("CLBD", "257.90", currency="SEK"), _ENTRY)

    with pytest.raises(InvalidRequestError) as refused:
        read_statement(data)

    assert refused.value.field == "Stmt/Bal[2]/Amt/@Ccy"
    assert "SEK" in str(refused.value)
    assert "EUR" in str(refused.value)


def test_camt_balance_without_a_direction_is_refused_naming_it() -> None:
    data = _camt(_bal("OPBD", "300.00").replace("<CdtDbtInd>CRDT</CdtDbtInd>", ""))

    with pytest.raises(InvalidRequestError) as refused:
        read_statement(data)

    assert refused.value.field == "Stmt/Bal[1]/CdtDbtInd"


def test_camt_no_movement_day_without_account_currency_reads_from_its_balances() -> None:
    read = read_statement(_camt(_bal("OPBD", "300.00") + _bal("CLBD", "300.00"), ccy=""))

    assert (read.currency, read.lines) == ("EUR", ())
    assert read.closing is not None
    assert read.closing.amount == _eur(30000)


def test_mt940_balances_are_read_with_comma_decimals() -> None:
    read = read_statement(_MT940.format(closing="2380,00").encode())

    assert read.opening is not None
    assert read.closing is not None
    assert (read.opening.amount, read.opening.field) == (_eur(250000), ":60F:")
    assert (read.closing.amount, read.closing.day) == (_eur(238000), date(2026, 11, 5))


def test_mt940_intermediate_page_balances_open_and_close_it() -> None:
    page = (
        _MT940.format(closing="0")
        .replace(":60F:", ":60M:")
        .replace(":62F:C261105EUR0", ":62M:C261105EUR2380,00")
    )
    read = read_statement(page.encode())

    assert read.opening is not None
    assert read.closing is not None
    assert (read.opening.field, read.closing.field) == (":60M:", ":62M:")


def test_mt940_closing_in_another_currency_is_refused_naming_its_tag() -> None:
    data = _MT940.format(closing="2380,00").replace(":62F:C261105EUR", ":62F:C261105USD")

    with pytest.raises(InvalidRequestError) as refused:
        read_statement(data.encode())

    assert refused.value.field == ":62F:"


def _with_balances(read: Statement, opening: int, closing: int, day: int = 5) -> Statement:
    def balance(minor: int, field: str) -> Balance:
        return Balance(amount=_eur(minor), day=date(2026, 11, day), field=field)

    return replace(read, opening=balance(opening, "OPBD"), closing=balance(closing, "CLBD"))


def test_unbalanced_statement_is_a_break_naming_the_statement_and_both_figures(
    books: Reconciliation,
) -> None:
    read = read_statement(_MT940.format(closing="2390,00").encode())
    books.import_statement(read, b"mt940-1", name="ing.sta", imported_by="t", action_id="a-1")

    (found,) = books.breaks(kind=BreakKind.STATEMENT_UNBALANCED)
    assert found.reference == "940S261105/00311/00001"
    assert "2500.00 EUR" in found.detail
    assert "2380.00 EUR" in found.detail
    assert "2390.00 EUR" in found.detail
    assert (found.statement_amount, found.ledger_amount) == (_eur(239000), _eur(238000))
    assert found.difference == _eur(1000)


def test_a_statement_that_adds_up_opens_no_balance_break(books: Reconciliation) -> None:
    read = read_statement(_MT940.format(closing="2380,00").encode())
    books.import_statement(read, b"mt940-2", name="ing.sta", imported_by="t", action_id="a-2")

    assert books.breaks(kind=BreakKind.STATEMENT_UNBALANCED) == []


def test_statements_that_chain_open_no_gap_and_a_gap_is_a_break(books: Reconciliation) -> None:
    first = _with_balances(statement(statement_id="D1"), 10000, 10000, day=3)
    second = _with_balances(statement(statement_id="D2"), 10000, 10000, day=4)
    third = _with_balances(statement(statement_id="D3"), 9000, 9000, day=5)
    load(books, first)
    load(books, second)
    assert books.breaks(kind=BreakKind.STATEMENT_GAP) == []

    load(books, third)

    (gap,) = books.breaks(kind=BreakKind.STATEMENT_GAP)
    assert gap.reference == "D3"
    assert "D2" in gap.detail
    assert "100.00 EUR" in gap.detail
    assert "90.00 EUR" in gap.detail
    assert gap.difference == _eur(1000)


def test_no_movement_statement_is_imported_and_proves_the_day(books: Reconciliation) -> None:
    quiet = _with_balances(statement(statement_id="QUIET"), 50000, 50000)
    load(books, quiet)

    assert books.breaks() == []
    (proof,) = books.proofs_of_cash()
    assert (proof.statement_id, proof.balances, proof.reconciled) == ("QUIET", True, True)


def test_proof_of_cash_balances_when_every_line_is_a_movement(books: Reconciliation) -> None:
    settle(books.ledger, "ok", 2500)
    read = _with_balances(statement(line("ok", 2500, bank="B1")), 100000, 97500)
    load(books, read)

    (proof,) = books.proofs_of_cash()
    assert (proof.closing, proof.ledger_balance, proof.difference) == (
        _eur(97500),
        _eur(97500),
        _eur(0),
    )
    assert (proof.balances, proof.reconciled) == (True, True)


def test_proof_of_cash_lists_the_unmatched_items_on_each_side(books: Reconciliation) -> None:
    settle(books.ledger, "ok", 2500)
    omitted = settle(books.ledger, "omitted", 700)
    read = _with_balances(
        statement(line("ok", 2500, bank="B1"), line("unknown", 300, bank="B2")), 100000, 97200
    )
    load(books, read)

    (proof,) = books.proofs_of_cash()
    assert [(i.reference, i.amount) for i in proof.unmatched_lines] == [
        (sent("unknown"), _eur(-300))
    ]
    assert [(i.item_id, i.amount) for i in proof.unmatched_movements] == [(omitted, _eur(-700))]
    assert proof.ledger_balance == _eur(100000 - 2500 - 700)
    assert proof.difference == _eur(400)
    assert proof.explained == _eur(400)
    assert (proof.balances, proof.reconciled) == (True, False)


def test_charges_debited_on_top_of_a_line_add_up_and_are_a_reconciling_item(
    books: Reconciliation,
) -> None:
    settle(books.ledger, "fee", 2500)
    read = _with_balances(statement(line("fee", 2500, bank="B1", fee=30)), 100000, 97470)
    load(books, read)

    assert books.breaks(kind=BreakKind.STATEMENT_UNBALANCED) == []
    (proof,) = books.proofs_of_cash()
    assert (proof.statement_lines, proof.ledger_balance) == (_eur(-2530), _eur(97500))
    assert [(i.reference, i.amount) for i in proof.charges] == [(sent("fee"), _eur(-30))]
    assert (proof.difference, proof.explained, proof.balances) == (_eur(-30), _eur(-30), True)


def test_charges_counted_neither_way_leave_the_statement_unbalanced(
    books: Reconciliation,
) -> None:
    read = _with_balances(statement(line("fee", 2500, bank="B1", fee=30)), 100000, 97000)
    load(books, read)

    (found,) = books.breaks(kind=BreakKind.STATEMENT_UNBALANCED)
    assert "975.00 EUR (974.70 EUR with their charges)" in found.detail
    assert "970.00 EUR" in found.detail
    (proof,) = books.proofs_of_cash()
    assert (proof.statement_adds_up, proof.balances) == (False, False)


def test_a_statement_opening_before_the_previous_one_closed_is_an_overlap(
    books: Reconciliation,
) -> None:
    load(books, _with_balances(statement(statement_id="W1"), 10000, 10000, day=5))
    overlapping = _with_balances(statement(statement_id="W2"), 10000, 10000, day=6)
    early = replace(overlapping.opening, day=date(2026, 11, 4)) if overlapping.opening else None
    load(books, replace(overlapping, opening=early))

    (overlap,) = books.breaks(kind=BreakKind.STATEMENT_GAP)
    assert "an overlap" in overlap.detail
    assert (overlap.reference, overlap.difference) == ("W2", _eur(0))
