"""Batches and kinds: an entry holding several transactions is matched transaction by
transaction (1:N), its total checked against theirs; a fee or interest line is never a payout
of the same amount; a return names the payout it returns and the rail's reason."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta

import pytest

from sagas.ledger import Ledger
from sagas.payouts import EXTERNAL_PAYOUT_SAGA, PAYOUT_CLEARING, PAYOUT_ENTRY
from sagas.reconcile import (
    BreakKind,
    BreakView,
    LineDirection,
    LineKind,
    RailMovement,
    ReconcilePolicy,
    Reconciliation,
    read_statement,
)
from sagas.reconcile.matching import BATCH_METHOD, BookedLine, BookedTransaction, match
from tests.ledger._money import eur
from tests.reconcile.camt_documents import entry, statement
from tests.reconcile.fixture_files import fixture, return_entry
from tests.reconcile.schemas import schema_errors
from tests.reconcile.test_matching import new_action, sent, settle, today

STRICT = ReconcilePolicy(grace=timedelta(0))
BATCH_ENTRY = "2026112800017BTCH"
_FAMILY = "<Domn><Cd>{}</Cd><Fmly><Cd>{}</Cd><SubFmlyCd>{}</SubFmlyCd></Fmly></Domn>"


@pytest.fixture
def books(ledger: Ledger) -> Reconciliation:
    ledger.declare(system_accounts=[PAYOUT_CLEARING], entry_kinds=[PAYOUT_ENTRY])
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000_000))
    return Reconciliation(ledger, [EXTERNAL_PAYOUT_SAGA], STRICT)


def valid(data: bytes, message: str) -> bytes:
    assert schema_errors(data, message) == []
    return data


def batch(day: date, *, total: str = "370.50", closing: str = "9629.50") -> bytes:
    """The batch of payouts `a` (250.00) and `b` (120.50), booked as one entry of `total`."""
    data = fixture(
        "camt053_batch_payouts.xml",
        day,
        E2E_A=sent("a"),
        E2E_B=sent("b"),
        TOTAL=total,
        CLOSING=closing,
    )
    return valid(data, "camt.053.001.08")


def fees(day: date, *, returned: str = "", closing: str = "497.50") -> bytes:
    data = fixture(
        "camt053_fee_and_return.xml",
        day,
        IBAN="DE02120300000000202051",
        OPENING="500.00",
        CLOSING=closing,
        RETURN=returned,
    )
    return valid(data, "camt.053.001.08")


def load(books: Reconciliation, data: bytes) -> None:
    books.import_statement(
        read_statement(data), data, name="f", imported_by="t", action_id=new_action()
    )


def found(books: Reconciliation) -> list[tuple[BreakKind, str | None]]:
    return sorted((b.kind, b.reference) for b in books.breaks())


def test_a_batch_of_two_payouts_matches_each_by_its_end_to_end_id(books: Reconciliation) -> None:
    settle(books.ledger, "a", 25000)
    settle(books.ledger, "b", 12050)

    load(books, batch(today()))
    again = books.run(action_id=new_action())

    assert books.breaks() == []
    assert [status.status.split(" (")[1] for status in books.movements()] == [
        "batch_reference)",
        "batch_reference)",
    ]
    assert (again.matched, again.opened) == (0, [])


def test_a_batch_read_keeps_every_transaction() -> None:
    (line,) = read_statement(batch(date(2026, 11, 28))).lines

    assert (line.bank_reference, line.kind, line.amount) == (
        BATCH_ENTRY,
        LineKind.PAYOUT,
        eur(37050),
    )
    assert [(t.end_to_end_id, t.amount) for t in line.transactions] == [
        (sent("a"), eur(25000)),
        (sent("b"), eur(12050)),
    ]


def test_a_batch_whose_total_differs_from_its_transactions_is_a_break_naming_it(
    books: Reconciliation,
) -> None:
    settle(books.ledger, "a", 25000)
    settle(books.ledger, "b", 12050)

    load(books, batch(today(), total="375.50", closing="9624.50"))

    (broken,) = books.breaks()
    assert (broken.kind, broken.reference) == (BreakKind.BATCH_TOTAL_MISMATCH, BATCH_ENTRY)
    assert (broken.statement_amount, broken.ledger_amount) == (eur(37550), eur(37050))
    assert f"entry {BATCH_ENTRY} booked 37550, its 2 transactions add up to 37050" in (
        broken.detail
    )
    assert all(s.status.startswith("matched") for s in books.movements())


def test_a_batch_return_of_two_items_names_each_payout_and_its_reason(
    books: Reconciliation,
) -> None:
    settle(books.ledger, "a", 25000)
    settle(books.ledger, "b", 12050)
    load(books, batch(today()))

    returned = valid(
        fixture("camt054_batch_return.xml", today(), E2E_A=sent("a"), E2E_B=sent("b")),
        "camt.054.001.08",
    )
    (line,) = read_statement(returned).lines
    load(books, returned)

    assert line.kind is LineKind.RETURN
    assert [t.return_reason for t in line.transactions] == ["AC04", "MD07"]
    first, second = books.breaks()
    assert found(books) == sorted(
        [(BreakKind.MISSING_IN_LEDGER, sent("a")), (BreakKind.MISSING_IN_LEDGER, sent("b"))]
    )
    assert _said(first, sent("a"), "returns 25000", "AC04 (closed account)")
    assert _said(second, sent("b"), "returns 12050", "MD07 (end customer deceased)")


def _said(broken: BreakView, original: str, amount: str, reason: str) -> bool:
    return all(part in broken.detail for part in (original, amount, reason))


def test_a_fee_entry_is_never_matched_to_a_payout_of_the_same_amount(
    books: Reconciliation,
) -> None:
    entry_id = settle(books.ledger, "p", 250)

    load(books, fees(today()))

    assert found(books) == sorted(
        [(BreakKind.FEE, None), (BreakKind.MISSING_IN_STATEMENT, sent("p"))]
    )
    missing = books.breaks(kind=BreakKind.MISSING_IN_STATEMENT)[0]
    fee = books.breaks(kind=BreakKind.FEE)[0]
    assert (missing.entry_id, fee.statement_amount, fee.entry_id) == (entry_id, eur(250), None)
    assert [s.status.split(" ")[2] for s in books.movements()] == ["missing_in_statement"]


def test_a_return_ac04_names_the_payout_it_returns_and_its_reason(
    books: Reconciliation,
) -> None:
    settle(books.ledger, "r", 9000)
    returned = return_entry(today(), end_to_end_id=sent("r"), amount="90.00")

    load(books, fees(today(), returned=returned, closing="587.50"))

    (back,) = [b for b in books.breaks() if b.kind is BreakKind.MISSING_IN_LEDGER]
    assert (back.reference, back.statement_amount) == (sent("r"), eur(9000))
    assert f"payout {sent('r')}, reason AC04 (closed account)" in back.detail


def test_mt940_type_codes_give_fee_interest_and_a_return_with_its_reason() -> None:
    data = fixture("mt940_fee_interest_return.sta", date(2026, 11, 28), E2E=sent("r"))

    fee, interest, returned = read_statement(data).lines

    assert [(x.kind, x.direction) for x in (fee, interest, returned)] == [
        (LineKind.FEE, LineDirection.DEBIT),
        (LineKind.INTEREST, LineDirection.CREDIT),
        (LineKind.RETURN, LineDirection.CREDIT),
    ]
    assert (fee.end_to_end_id, interest.end_to_end_id) == (None, None)
    assert returned.end_to_end_id == sent("r")  # from :86: /EREF/, longer than :61: holds
    assert [(t.end_to_end_id, t.return_reason) for t in returned.transactions] == [
        (sent("r"), "AC04")
    ]


def test_mt940_fee_and_interest_lines_are_breaks_of_their_kind_never_payouts(
    books: Reconciliation,
) -> None:
    settle(books.ledger, "p", 250)
    settle(books.ledger, "r", 9000)
    data = fixture("mt940_fee_interest_return.sta", today(), E2E=sent("r"))

    load(books, data)

    assert found(books) == sorted(
        [
            (BreakKind.FEE, None),
            (BreakKind.INTEREST, None),
            (BreakKind.MISSING_IN_LEDGER, sent("r")),
            (BreakKind.MISSING_IN_STATEMENT, sent("p")),
            (BreakKind.MISSING_IN_STATEMENT, sent("r")),
        ]
    )


def test_an_unmatched_transaction_of_a_batch_is_a_break_of_its_own(
    books: Reconciliation,
) -> None:
    settle(books.ledger, "a", 25000)

    load(books, batch(today()))

    assert found(books) == [(BreakKind.MISSING_IN_LEDGER, sent("b"))]
    (broken,) = books.breaks()
    assert (broken.statement_amount, f"transaction 2 of entry {BATCH_ENTRY}") == (
        eur(12050),
        broken.detail[: len(f"transaction 2 of entry {BATCH_ENTRY}")],
    )


def test_a_batch_transaction_of_another_amount_is_a_mismatch_of_that_payout(
    books: Reconciliation,
) -> None:
    settle(books.ledger, "a", 25000)
    settle(books.ledger, "b", 12000)

    load(books, batch(today()))

    assert found(books) == [(BreakKind.AMOUNT_MISMATCH, sent("b"))]
    (broken,) = books.breaks()
    assert (broken.ledger_amount, broken.statement_amount) == (eur(12000), eur(12050))


def _return_of(key: str, entry_id: int, minor: int) -> RailMovement:
    """A return the ledger booked (a rail step of kind `return`, money coming in)."""
    return RailMovement(
        entry_id=entry_id,
        entry_hash="0" * 64,
        saga_id=f"payout-{key}",
        saga_type="payout",
        step="returned",
        reference=sent(key),
        reference_key=f"payout-{key}:submit:action",
        direction=LineDirection.CREDIT,
        kind=LineKind.RETURN,
        amount=eur(minor),
        booked_at=datetime.combine(today(), time(12), UTC),
    )


def test_a_batch_return_matches_each_return_the_ledger_booked() -> None:
    items = tuple(
        BookedTransaction(
            transaction_id=10 + n,
            position=n,
            end_to_end_id=sent(key),
            amount_minor=minor,
            return_reason="AC04",
        )
        for n, (key, minor) in enumerate((("a", 25000), ("b", 12050)), 1)
    )
    line = BookedLine(
        line_id=1,
        end_to_end_id=sent("a"),
        direction=LineDirection.CREDIT,
        amount_minor=37050,
        currency="EUR",
        fee_minor=None,
        value_date=today(),
        kind=LineKind.RETURN,
        bank_reference="RTN-1",
        transactions=items,
    )
    movements = [_return_of("a", 7, 25000), _return_of("b", 8, 12050)]
    covered = {"EUR": datetime.combine(today(), time(23, 59), UTC)}

    outcome = match([line], movements, {}, covered, STRICT)

    assert outcome.transaction_matches == [(11, 7, BATCH_METHOD), (12, 8, BATCH_METHOD)]
    assert (outcome.findings, outcome.matched_lines) == ([], {1})


@pytest.mark.parametrize(
    ("code", "direction", "kind"),
    [
        (_FAMILY.format("ACMT", "MDOP", "CHRG"), "DBIT", LineKind.FEE),
        (_FAMILY.format("ACMT", "MDOP", "INTR"), "CRDT", LineKind.INTEREST),
        (_FAMILY.format("PMNT", "ICDT", "ESCT"), "DBIT", LineKind.PAYOUT),
        (_FAMILY.format("PMNT", "RCDT", "ESCT"), "CRDT", LineKind.OTHER),
        (_FAMILY.format("PMNT", "ICDT", "RRTN"), "CRDT", LineKind.RETURN),
        ("<Prtry><Cd>NCHG+808</Cd><Issr>DK</Issr></Prtry>", "DBIT", LineKind.FEE),
        ("<Prtry><Cd>NINT</Cd><Issr>DK</Issr></Prtry>", "CRDT", LineKind.INTEREST),
        ("<Prtry><Cd>NTRF+116</Cd><Issr>DK</Issr></Prtry>", "DBIT", LineKind.PAYOUT),
        ("<Prtry><Cd>NTRF+166</Cd><Issr>DK</Issr></Prtry>", "CRDT", LineKind.OTHER),
    ],
)
def test_a_camt_line_has_the_kind_its_bank_transaction_code_states(
    code: str, direction: str, kind: LineKind
) -> None:
    data = valid(statement(entry(code=code, direction=direction)), "camt.053.001.08")

    (line,) = read_statement(data).lines

    assert line.kind is kind
