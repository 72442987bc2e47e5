"""`Ledger.sweep` on SQLite and PostgreSQL: what is swept, what is kept, exactly once."""

from __future__ import annotations

import threading

import pytest

from sagas import (
    AccountClosedError,
    AccountFrozenError,
    CurrencyMismatchError,
    EffectCompensatedError,
    InsufficientFundsError,
    InvalidRequestError,
    Money,
    UnknownAccountError,
)
from sagas.ledger import Ledger
from sagas.sweep import SWEEP_ENTRY


def eur(minor: int) -> Money:
    return Money.of(minor, "EUR")


@pytest.fixture
def books(ledger: Ledger) -> Ledger:
    """Operating 100.00 EUR, an empty treasury, the sweep's entry kind declared."""
    ledger.declare(entry_kinds=(SWEEP_ENTRY,))
    ledger.open_account("operating", "EUR", opening_balance=eur(10_000))
    ledger.open_account("treasury", "EUR")
    return ledger


def sweep(ledger: Ledger, keep: int, key: str = "s:sweep:action") -> Money | None:
    entry = ledger.sweep(
        key, "operating", "treasury", keep=eur(keep), kind=SWEEP_ENTRY, saga_id="s"
    )
    if entry is None:
        return None
    (credit,) = [p.amount for p in entry.postings if p.account_id == "treasury"]
    return credit


def balance(ledger: Ledger, account_id: str) -> int:
    return ledger.account(account_id).balance.minor


def test_above_the_threshold_exactly_the_excess_moves(books: Ledger) -> None:
    assert sweep(books, 3_000) == eur(7_000)

    assert (balance(books, "operating"), balance(books, "treasury")) == (3_000, 7_000)
    (entry,) = books.entries(saga_id="s")
    assert entry.kind == SWEEP_ENTRY
    assert books.check_invariants() == []


@pytest.mark.parametrize("keep", [10_000, 10_001, 1_000_000])
def test_at_or_below_the_threshold_nothing_moves_and_nothing_is_written(
    books: Ledger, keep: int
) -> None:
    assert sweep(books, keep) is None

    assert balance(books, "operating") == 10_000
    assert books.entries(saga_id="s") == []
    assert books.check_invariants() == []


def test_a_zero_threshold_sweeps_everything_available(books: Ledger) -> None:
    assert sweep(books, 0) == eur(10_000)
    assert balance(books, "operating") == 0


def test_held_money_is_never_swept(books: Ledger) -> None:
    books.place_hold("other:hold", "operating", eur(2_000), saga_id="other")

    assert sweep(books, 3_000) == eur(5_000)

    account = books.account("operating")
    assert (account.balance, account.held, account.available) == (
        eur(5_000),
        eur(2_000),
        eur(3_000),
    )
    books.void_hold("other:hold", saga_id="other")
    assert books.check_invariants() == []


def test_a_pending_credit_is_not_swept_until_it_is_final(books: Ledger) -> None:
    books.open_account("payer", "EUR", opening_balance=eur(4_000))
    books.transfer("p:credit", "payer", "operating", eur(4_000), saga_id="p", pending=True)

    assert sweep(books, 3_000) == eur(7_000)
    assert balance(books, "operating") == 7_000  # the pending 40.00 stays, still reversible
    assert books.check_invariants() == []


def test_the_overdraft_is_never_swept(books: Ledger) -> None:
    books.open_account("lender", "EUR", opening_balance=eur(1_000), overdraft=eur(50_000))

    entry = books.sweep("o:sweep", "lender", "treasury", keep=eur(0), kind=SWEEP_ENTRY, saga_id="o")

    assert entry is not None
    assert books.account("lender").balance == eur(0)


def test_a_retry_after_the_commit_returns_the_first_amount_and_moves_nothing(
    books: Ledger,
) -> None:
    assert sweep(books, 3_000) == eur(7_000)
    books.fund("late-credit", "operating", eur(2_500))

    assert sweep(books, 3_000) == eur(7_000)

    assert len(books.entries(saga_id="s")) == 1
    assert balance(books, "operating") == 5_500
    assert books.check_invariants() == []


def test_a_sweep_reversed_by_its_compensation_is_not_reported_again(books: Ledger) -> None:
    sweep(books, 3_000)
    books.reverse("s:sweep:compensation", "s:sweep:action", saga_id="s")

    with pytest.raises(EffectCompensatedError):
        sweep(books, 3_000)
    assert balance(books, "operating") == 10_000
    assert books.net_effect("s") == {}


def test_a_compensation_before_the_sweep_fences_it(books: Ledger) -> None:
    assert books.reverse("s:sweep:compensation", "s:sweep:action", saga_id="s") is None

    with pytest.raises(EffectCompensatedError):
        sweep(books, 3_000)
    assert balance(books, "operating") == 10_000


@pytest.mark.parametrize("account_id", ["operating", "treasury"])
def test_a_frozen_account_refuses_the_sweep_whatever_it_would_move(
    books: Ledger, account_id: str
) -> None:
    books.freeze(account_id)

    for keep in (3_000, 10_000):
        with pytest.raises(AccountFrozenError):
            sweep(books, keep)
    assert books.entries(saga_id="s") == []


def test_a_closed_treasury_refuses_the_sweep(books: Ledger) -> None:
    books.close_account("treasury")

    with pytest.raises(AccountClosedError):
        sweep(books, 3_000)
    assert books.entries(saga_id="s") == []


@pytest.mark.parametrize(
    ("source", "dest", "keep", "kind", "error"),
    [
        ("ghost", "treasury", 0, SWEEP_ENTRY, UnknownAccountError),
        ("operating", "ghost", 0, SWEEP_ENTRY, UnknownAccountError),
        ("operating", "treasury-usd", 0, SWEEP_ENTRY, CurrencyMismatchError),
        ("operating", "operating", 0, SWEEP_ENTRY, InvalidRequestError),
        ("operating", "treasury", -1, SWEEP_ENTRY, InvalidRequestError),
        ("operating", "treasury", 0, "undeclared", InvalidRequestError),
    ],
    ids=["unknown-source", "unknown-treasury", "currency", "same-account", "negative", "kind"],
)
def test_bad_input_is_refused_writing_nothing(
    books: Ledger, source: str, dest: str, keep: int, kind: str, error: type[Exception]
) -> None:
    books.open_account("treasury-usd", "USD")

    with pytest.raises(error):
        books.sweep("x:sweep", source, dest, keep=eur(keep), kind=kind, saga_id="x")

    assert books.entries(saga_id="x") == []
    assert balance(books, "operating") == 10_000


def race(books: Ledger, n: int) -> bool:
    """A 50.00 debit and a sweep keeping 30.00 of operating, started at once; whether the
    debit was refused (the sweep committed first)."""
    start = threading.Barrier(2)
    refused: list[InsufficientFundsError] = []

    def debit() -> None:
        start.wait()
        try:
            books.transfer(f"debit-{n}", "operating", "payee", eur(5_000), saga_id=f"d{n}")
        except InsufficientFundsError as err:
            refused.append(err)

    def swept() -> None:
        start.wait()
        sweep(books, 3_000, key=f"s{n}:sweep:action")

    threads = [threading.Thread(target=debit), threading.Thread(target=swept)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return bool(refused)


def test_a_debit_racing_the_sweep_never_leaves_the_account_below_the_threshold(
    books: Ledger,
) -> None:
    """Operating 100.00 keeps 30.00: a sweep and a 50.00 debit at once, twenty times over.
    Whichever commits first, the operating account ends with exactly 30.00 and the money
    the two moved adds up."""
    books.open_account("payee", "EUR")
    for n in range(20):
        if n:
            books.fund(f"top-up-{n}", "operating", eur(10_000 - balance(books, "operating")))
        paid, swept = balance(books, "payee"), balance(books, "treasury")

        refused = race(books, n)

        assert balance(books, "operating") == 3_000, f"round {n}"
        moved = (balance(books, "payee") - paid, balance(books, "treasury") - swept)
        assert moved == ((0, 7_000) if refused else (5_000, 2_000)), f"round {n}"
    assert books.check_invariants() == []
