"""Ledger.post: one balanced multi-leg entry of a kind a saga type declared (a fee here)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from sagas import (
    AccountClosedError,
    AccountFrozenError,
    BusinessError,
    CurrencyMismatchError,
    EffectCompensatedError,
    InsufficientFundsError,
    InvalidRequestError,
    UnknownAccountError,
)
from sagas.ledger import HoldStatus, Ledger, Leg, PostingView, system_account_id
from tests.ledger._money import eur, usd

pytestmark = pytest.mark.long

FEE_INCOME = system_account_id("fee-income", "EUR")
TAX = system_account_id("tax-payable", "EUR")
FEE = [Leg("alice", eur(-1200)), Leg(FEE_INCOME, eur(1000)), Leg(TAX, eur(200))]


@pytest.fixture
def fees(ledger: Ledger) -> Ledger:
    """A ledger that knows the fee saga's roles and kinds, with alice holding 100.00 EUR."""
    ledger.declare(system_accounts=["fee-income", "tax-payable"], entry_kinds=["fee", "payout"])
    ledger.open_account("alice", "EUR", opening_balance=eur(10_000))
    ledger.open_account("bob", "EUR")
    return ledger


def state(ledger: Ledger) -> object:
    """Everything a refused posting must leave as it was."""
    balances = [(a.account_id, a.balance, a.held) for a in ledger.accounts(include_system=True)]
    return balances, ledger.entries(), ledger.holds(), ledger.chain_head()


def test_a_fee_posts_three_legs_as_one_entry_of_its_kind(fees: Ledger) -> None:
    entry = fees.post("s:fee:action", FEE, kind="fee", saga_id="s")

    assert entry.kind == "fee"
    assert entry.postings == (
        PostingView("alice", eur(-1200)),
        PostingView(FEE_INCOME, eur(1000)),
        PostingView(TAX, eur(200)),
    )
    assert fees.account("alice").balance == eur(8800)
    assert fees.account(FEE_INCOME).balance == eur(1000)
    assert fees.account(TAX).is_system
    assert fees.entry("s:fee:action") == entry
    assert fees.net_effect("s") == {"alice": eur(-1200), FEE_INCOME: eur(1000), TAX: eur(200)}
    assert fees.check_invariants() == []


def test_the_same_key_and_legs_return_the_same_entry_and_write_nothing(fees: Ledger) -> None:
    first = fees.post("s:fee:action", FEE, kind="fee", saga_id="s")
    before = state(fees)

    again = fees.post("s:fee:action", list(reversed(FEE)), kind="fee", saga_id="s")

    assert again == first
    assert state(fees) == before


@pytest.mark.parametrize(
    ("legs", "kind"),
    [
        pytest.param([Leg("alice", eur(-1100)), Leg(FEE_INCOME, eur(1100))], "fee", id="legs"),
        pytest.param(FEE, "payout", id="kind"),
    ],
)
def test_the_same_key_for_another_posting_is_refused(
    fees: Ledger, legs: list[Leg], kind: str
) -> None:
    fees.post("s:fee:action", FEE, kind="fee", saga_id="s")
    before = state(fees)

    with pytest.raises(InvalidRequestError) as refused:
        fees.post("s:fee:action", legs, kind=kind, saga_id="s")

    assert refused.value.field == "key"
    assert state(fees) == before


def test_a_reversed_or_void_marked_key_is_not_reported_as_posted(fees: Ledger) -> None:
    fees.post("s:fee:action", FEE, kind="fee", saga_id="s")
    fees.reverse("s:fee:compensation", "s:fee:action", saga_id="s")
    assert fees.reverse("t:fee:compensation", "t:fee:action", saga_id="t") is None

    for key in ("s:fee:action", "t:fee:action"):
        with pytest.raises(EffectCompensatedError):
            fees.post(key, FEE, kind="fee", saga_id=key[0])
    assert fees.check_invariants() == []


def test_a_reversal_restores_every_account(fees: Ledger) -> None:
    before = {a.account_id: a.balance for a in fees.accounts(include_system=True)}
    fees.post("s:fee:action", FEE, kind="fee", saga_id="s")

    reversal = fees.reverse("s:fee:compensation", "s:fee:action", saga_id="s")

    assert reversal is not None
    assert [p.amount for p in reversal.postings] == [-leg.amount for leg in FEE]
    after = {a.account_id: a.balance for a in fees.accounts(include_system=True)}
    assert after == before | {FEE_INCOME: eur(0), TAX: eur(0)}
    assert fees.net_effect("s") == {}
    assert fees.check_invariants() == []


REFUSED_REQUESTS = [
    pytest.param([Leg("alice", eur(-1)), Leg("bob", eur(1))], "fee", "", "key", id="bad-key"),
    pytest.param([Leg("alice", eur(0)), Leg("bob", eur(0))], "fee", "k", "legs", id="zero"),
    pytest.param([Leg("alice", eur(-1))], "fee", "k", "legs", id="one-leg"),
    pytest.param([], "fee", "k", "legs", id="no-legs"),
    pytest.param([("alice", eur(-1)), ("bob", eur(1))], "fee", "k", "legs", id="tuples"),
    pytest.param(
        [Leg("alice", eur(-1)), Leg("alice", eur(-1)), Leg("bob", eur(2))],
        "fee",
        "k",
        "legs",
        id="same-account-twice",
    ),
    pytest.param([Leg("alice", eur(-2)), Leg("bob", eur(1))], "fee", "k", "legs", id="unbalanced"),
    pytest.param(
        [Leg("alice", eur(-1)), Leg("bob", usd(1))], "fee", "k", "legs", id="across-currencies"
    ),
    pytest.param([Leg("alice", eur(-1)), Leg("bob", eur(1))], "fees", "k", "kind", id="typo"),
    pytest.param(
        [Leg("alice", eur(-1)), Leg("bob", eur(1))], "transfer", "k", "kind", id="built-in"
    ),
]


@pytest.mark.parametrize(("legs", "kind", "key", "field"), REFUSED_REQUESTS)
def test_a_malformed_posting_is_refused_naming_its_field(
    fees: Ledger, legs: list[Leg], kind: str, key: str, field: str
) -> None:
    before = state(fees)

    with pytest.raises(InvalidRequestError) as refused:
        fees.post(key, legs, kind=kind, saga_id="s")

    assert refused.value.field == field
    assert state(fees) == before


def test_an_undeclared_kind_is_refused_listing_the_declared_ones(fees: Ledger) -> None:
    with pytest.raises(InvalidRequestError, match=r"'refund'.*fee, payout"):
        fees.post("k", FEE, kind="refund", saga_id="s")


def _freeze_alice(ledger: Ledger) -> None:
    ledger.freeze("alice")


def _freeze_bob(ledger: Ledger) -> None:
    ledger.freeze("bob")


def _close_bob(ledger: Ledger) -> None:
    ledger.close_account("bob")


BUSINESS_REFUSALS = [
    pytest.param(
        None,
        [Leg("alice", eur(-1)), Leg("nobody", eur(1))],
        UnknownAccountError,
        id="unknown-account",
    ),
    pytest.param(
        None,
        [Leg("alice", eur(-1)), Leg("@payout-clearing:EUR", eur(1))],
        UnknownAccountError,
        id="undeclared-role",
    ),
    pytest.param(
        None,
        [Leg("alice", usd(-1)), Leg(system_account_id("fee-income", "USD"), usd(1))],
        CurrencyMismatchError,
        id="currency",
    ),
    pytest.param(
        None,
        [Leg("alice", eur(-10_001)), Leg(FEE_INCOME, eur(10_001))],
        InsufficientFundsError,
        id="insufficient",
    ),
    pytest.param(_freeze_alice, FEE, AccountFrozenError, id="debited-frozen"),
    pytest.param(
        _freeze_bob,
        [Leg("alice", eur(-1)), Leg("bob", eur(1))],
        AccountFrozenError,
        id="credited-frozen",
    ),
    pytest.param(
        _close_bob,
        [Leg("alice", eur(-1)), Leg("bob", eur(1))],
        AccountClosedError,
        id="credited-closed",
    ),
]


@pytest.mark.parametrize(("arrange", "legs", "error"), BUSINESS_REFUSALS)
def test_a_posting_the_accounts_cannot_take_is_a_business_refusal(
    fees: Ledger,
    arrange: Callable[[Ledger], None] | None,
    legs: list[Leg],
    error: type[BusinessError],
) -> None:
    if arrange is not None:
        arrange(fees)
    before = state(fees)

    with pytest.raises(error):
        fees.post("k", legs, kind="fee", saga_id="s")

    assert issubclass(error, BusinessError)
    assert state(fees) == before


def test_an_overdraft_may_pay_a_fee_up_to_its_limit(fees: Ledger) -> None:
    fees.open_account("carol", "EUR", overdraft=eur(500))
    over = [Leg("carol", eur(-501)), Leg(FEE_INCOME, eur(501))]

    with pytest.raises(InsufficientFundsError):
        fees.post("k", over, kind="fee", saga_id="s")
    fees.post("k", [Leg("carol", eur(-500)), Leg(FEE_INCOME, eur(500))], kind="fee", saga_id="s")

    assert fees.account("carol").balance == eur(-500)
    assert fees.check_invariants() == []


def test_a_consumed_hold_pays_its_part_of_the_debit_and_is_posted(fees: Ledger) -> None:
    fees.open_account("dave", "EUR", opening_balance=eur(1200))
    fees.place_hold("s:reserve:action", "dave", eur(1000), saga_id="s")
    legs = [Leg("dave", eur(-1200)), Leg(FEE_INCOME, eur(1000)), Leg(TAX, eur(200))]
    with pytest.raises(InsufficientFundsError):
        fees.post("s:fee:action", legs, kind="fee", saga_id="s")

    entry = fees.post(
        "s:fee:action", legs, kind="fee", saga_id="s", consume_hold="s:reserve:action"
    )

    assert [h.status for h in fees.holds(saga_id="s")] == [HoldStatus.POSTED]
    dave = fees.account("dave")
    assert (dave.balance, dave.held) == (eur(0), eur(0))
    assert fees.post("s:fee:action", legs, kind="fee", saga_id="s") == entry
    fees.reverse("s:fee:compensation", "s:fee:action", saga_id="s")
    assert fees.account("dave").balance == eur(1200)
    assert fees.check_invariants() == []


@pytest.mark.parametrize(
    ("hold_saga", "hold_amount", "consume", "legs"),
    [
        pytest.param("s", 500, "nothing-held", FEE, id="no-such-hold"),
        pytest.param("other", 500, "h", FEE, id="another-saga"),
        pytest.param("s", 1300, "h", FEE, id="more-than-the-debit"),
        pytest.param(
            "s", 500, "h", [Leg("bob", eur(-1)), Leg("alice", eur(1))], id="credited-account"
        ),
    ],
)
def test_a_hold_that_cannot_pay_the_posting_is_refused(
    fees: Ledger, hold_saga: str, hold_amount: int, consume: str, legs: list[Leg]
) -> None:
    fees.place_hold("h", "alice", eur(hold_amount), saga_id=hold_saga)
    before = state(fees)

    with pytest.raises(InvalidRequestError) as refused:
        fees.post("k", legs, kind="fee", saga_id="s", consume_hold=consume)

    assert refused.value.field == "consume_hold"
    assert state(fees) == before


def test_a_ledger_without_declarations_reads_verifies_and_reverses_posted_entries(
    fees: Ledger,
) -> None:
    entry = fees.post("s:fee:action", FEE, kind="fee", saga_id="s")
    plain = Ledger(fees.engine)

    assert plain.entry("s:fee:action") == entry
    assert plain.account(FEE_INCOME).balance == eur(1000)
    assert plain.check_invariants() == []
    with pytest.raises(InvalidRequestError, match="none"):
        plain.post("s:fee2:action", FEE, kind="fee", saga_id="s")
    with pytest.raises(UnknownAccountError):
        plain.transfer("t", "alice", system_account_id("fee-income", "USD"), usd(1), saga_id="t")
    assert plain.reverse("s:fee:compensation", "s:fee:action", saga_id="s") is not None
    assert fees.check_invariants() == []
