"""Balanced multi-leg entries of the kinds saga types declare (a fee, a payout, a split)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy.orm import Session

from sagas.foundations import InvalidRequestError, Money
from sagas.ledger._accounts import check_active, check_can_take, check_currency, lock_accounts
from sagas.ledger._declarations import declarations_of
from sagas.ledger._holds import consume, find_hold
from sagas.ledger._journal import AccountLeg, check_key, find_entry, post_entry, replay
from sagas.ledger._views import EntryView


@dataclass(frozen=True, slots=True)
class Leg:
    """One side of a posting: `amount` is signed, negative takes money out of the account."""

    account_id: str
    amount: Money


def post(
    session: Session,
    key: str,
    legs: Sequence[Leg],
    *,
    kind: str,
    saga_id: str,
    consume_hold: str | None = None,
) -> EntryView:
    """Write `legs` as one entry of a declared kind; a known key returns its entry unchanged."""
    check_key(key)
    declarations_of(session).check_kind(kind)
    if consume_hold is not None:
        check_key(consume_hold, "consume_hold")
    checked = _checked(legs)
    content = [(leg.account_id, leg.amount.minor) for leg in checked]
    existing = find_entry(session, key)
    if existing is not None:
        return replay(session, existing, kind, content)
    hold = None if consume_hold is None else find_hold(session, consume_hold, lock=True)
    accounts = lock_accounts(session, *(account_id for account_id, _ in content))
    existing = find_entry(session, key)
    if existing is not None:
        return replay(session, existing, kind, content)
    rows: list[AccountLeg] = [(accounts[account_id], minor) for account_id, minor in content]
    for leg in checked:
        check_currency(accounts[leg.account_id], leg.amount)
        check_active(accounts[leg.account_id])
    if consume_hold is not None:
        consume(session, hold, consume_hold, rows, saga_id)
    for account, minor in rows:
        if minor < 0:
            check_can_take(account, -minor)
    return post_entry(session, key=key, kind=kind, saga_id=saga_id, legs=rows)


def _checked(legs: Sequence[Leg]) -> list[Leg]:
    """The legs, once seen to name each account once and to balance in each currency."""
    items = None if isinstance(legs, str | bytes) else list(legs)
    if items is None or not all(isinstance(leg, Leg) for leg in items):
        raise InvalidRequestError("legs", "must be a sequence of Leg(account_id, Money)")
    if len(items) < 2:
        raise InvalidRequestError("legs", f"needs at least 2 legs, got {len(items)}")
    totals: dict[str, int] = {}
    for leg in items:
        if not isinstance(leg.account_id, str) or not isinstance(leg.amount, Money):
            raise InvalidRequestError("legs", f"{leg!r} is not an account id and Money")
        if leg.amount.minor == 0:
            raise InvalidRequestError("legs", f"the leg on {leg.account_id!r} moves nothing")
        code = leg.amount.currency.code
        totals[code] = totals.get(code, 0) + leg.amount.minor
    account_ids = [leg.account_id for leg in items]
    if len(set(account_ids)) != len(account_ids):
        raise InvalidRequestError("legs", "name each account once")
    unbalanced = {code: Money.of(total, code) for code, total in totals.items() if total}
    if unbalanced:
        sums = ", ".join(str(money) for money in unbalanced.values())
        raise InvalidRequestError("legs", f"must sum to zero in each currency, not {sums}")
    return items
