from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

import pytest

from sagas import InsufficientFundsError
from sagas.ledger import Ledger, clearing_account_id
from tests.ledger._money import eur

# row locks on PostgreSQL, one writer on SQLite.
pytestmark = pytest.mark.databases_differ

T = TypeVar("T")
BALANCE = 1_000
AMOUNT = 30
CHECK_PAUSE_S = 0.005
"""Between two checks, as a collector waits between its runs: on SQLite a check holds the
write lock, and checks back to back would starve the writers."""


def run_concurrently(count: int, call: Callable[[int], T]) -> list[T | Exception]:
    def guarded(index: int) -> T | Exception:
        try:
            return call(index)
        except Exception as exc:
            return exc

    with ThreadPoolExecutor(count) as pool:
        return list(pool.map(guarded, range(count)))


def test_fifty_concurrent_holds_never_overdraw(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(BALANCE))

    results = run_concurrently(
        50, lambda i: ledger.place_hold(f"h{i}", "alice", eur(AMOUNT), saga_id=f"s{i}")
    )

    failures = [r for r in results if isinstance(r, Exception)]
    assert all(isinstance(f, InsufficientFundsError) for f in failures), failures
    assert len(results) - len(failures) == BALANCE // AMOUNT
    account = ledger.account("alice")
    assert account.held == eur(BALANCE // AMOUNT * AMOUNT)
    assert account.available.minor >= 0
    assert ledger.check_invariants() == []


def test_fifty_concurrent_debits_never_overdraw(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(BALANCE))
    clearing = clearing_account_id("EUR")

    results = run_concurrently(
        50, lambda i: ledger.transfer(f"t{i}", "alice", clearing, eur(AMOUNT), saga_id=f"s{i}")
    )

    failures = [r for r in results if isinstance(r, Exception)]
    assert all(isinstance(f, InsufficientFundsError) for f in failures), failures
    assert len(results) - len(failures) == BALANCE // AMOUNT
    assert ledger.account("alice").balance == eur(BALANCE % AMOUNT)
    assert ledger.check_invariants() == []


def test_twenty_concurrent_holds_with_the_same_key_make_one_hold(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(BALANCE))

    results = run_concurrently(
        20, lambda _: ledger.place_hold("same", "alice", eur(BALANCE), saga_id="s")
    )

    assert not [r for r in results if isinstance(r, Exception)]
    assert len(set(results)) == 1
    assert len(ledger.holds()) == 1
    assert ledger.account("alice").held == eur(BALANCE)


def test_twenty_concurrent_reversals_before_the_original_make_one_marker(ledger: Ledger) -> None:
    results = run_concurrently(20, lambda _: ledger.reverse("undo", "t", saga_id="s"))

    assert results == [None] * 20
    assert len(ledger.entries()) == 1


def test_twenty_concurrent_voids_before_the_hold_make_one_tombstone(ledger: Ledger) -> None:
    results = run_concurrently(20, lambda _: ledger.void_hold("late", saga_id="s"))

    assert not [r for r in results if isinstance(r, Exception)]
    assert len(ledger.holds()) == 1


def test_the_invariant_check_never_sees_a_write_half_done(ledger: Ledger) -> None:
    """A check running while transfers commit, and the sealer seals them, reads one snapshot:
    no false finding (the collector checks a live ledger, and a finding pages someone)."""
    ledger.open_account("alice", "EUR", opening_balance=eur(BALANCE * 100))
    clearing = clearing_account_id("EUR")
    writes = 200

    def write(index: int) -> None:
        ledger.transfer(f"w{index}", "alice", clearing, eur(1), saga_id=f"w{index}")

    def keep_checking() -> tuple[int, list[str]]:
        checks, findings = 0, list[str]()
        while not writes_done.is_set() and not findings:
            findings += ledger.check_invariants()
            checks += 1
            time.sleep(CHECK_PAUSE_S)
        return checks, findings

    def keep_sealing() -> None:
        while not writes_done.is_set():
            ledger.seal()
            time.sleep(CHECK_PAUSE_S)

    writes_done = threading.Event()
    with ThreadPoolExecutor(5) as pool:
        checking = pool.submit(keep_checking)
        sealing = pool.submit(keep_sealing)
        try:
            list(pool.map(write, range(writes)))
        finally:
            writes_done.set()
        checks, findings = checking.result(timeout=120)
        sealing.result(timeout=120)
    assert findings == []
    assert checks > 1
    assert ledger.seal().sequence == writes + 1  # and the opening balance
    assert ledger.unsealed_entries() == 0
    assert ledger.check_invariants() == []
