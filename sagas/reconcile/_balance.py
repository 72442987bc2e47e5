"""A statement's opening and closing balances as its file states them, and whether its lines
add up from the one to the other."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from sagas.foundations import InvalidRequestError, Money
from sagas.reconcile._statement import Balance, LineDirection, StatementLine


def stated_balance(
    amount: Money, *, debit: bool, day: date, field: str, currency_field: str, currency: str
) -> Balance:
    """A balance read from `field`, refused naming `currency_field` when it is in another
    currency than the statement's: the lines could never add up to it."""
    if amount.currency.code != currency:
        problem = f"is {amount.currency.code}, but the statement is in {currency}"
        raise InvalidRequestError(currency_field, problem)
    signed = Money.of(-amount.minor if debit else amount.minor, currency)
    return Balance(amount=signed, day=day, field=field)


def moved(lines: Iterable[StatementLine], currency: str) -> Money:
    """What the lines move, seen from the account: credits in, debits out."""
    total = 0
    for line in lines:
        total += line.amount.minor if line.direction is LineDirection.CREDIT else -line.amount.minor
    return Money.of(total, currency)


def unbalanced(
    statement_id: str, opening: Balance, closing: Balance, lines: Iterable[StatementLine]
) -> str | None:
    """Why the statement does not add up (opening + lines != closing), or None when it does."""
    code = opening.amount.currency.code
    movement = moved(lines, code)
    expected = opening.amount.minor + movement.minor
    if expected == closing.amount.minor:
        return None
    return (
        f"statement {statement_id}: opening {opening.amount} ({opening.field}) + lines "
        f"{movement} = {Money.of(expected, code)}, but its closing balance ({closing.field}) "
        f"is {closing.amount}"
    )
