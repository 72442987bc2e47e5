"""A statement's opening and closing balances as its file states them, and whether its lines
add up from the one to the other."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import date

from sagas.foundations import InvalidRequestError, Money
from sagas.reconcile.formats._statement import Balance, LineDirection, StatementLine


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


def moved(lines: Iterable[StatementLine], currency: str, *, charges_on_top: bool = False) -> Money:
    """What the lines move, seen from the account: credits in, debits out; with
    `charges_on_top`, each line's charges (camt `Chrgs`) debited with it too."""
    total = 0
    for line in lines:
        total += line.amount.minor if line.direction is LineDirection.CREDIT else -line.amount.minor
        if charges_on_top and line.fee is not None:
            total -= line.fee.minor
    return Money.of(total, currency)


def adds_up(opening: Money, closing: Money, lines: Iterable[StatementLine]) -> bool | None:
    """Whether opening + lines = closing, reading the lines' charges either way banks book them:
    in the amount or as entries of their own (False), or debited on top of the amount with
    the entry (True, a camt `Chrgs` with `ChrgInclInd` false and no entry of its own). None:
    neither way adds up."""
    kept = list(lines)
    code = opening.currency.code
    if opening + moved(kept, code) == closing:
        return False
    if (
        any(line.fee for line in kept)
        and opening + moved(kept, code, charges_on_top=True) == closing
    ):
        return True
    return None


def unbalanced(
    statement_id: str, opening: Balance, closing: Balance, lines: Iterable[StatementLine]
) -> str | None:
    """Why the statement does not add up (opening + lines != closing), or None when it does."""
    kept = list(lines)
    if adds_up(opening.amount, closing.amount, kept) is not None:
        return None
    code = opening.amount.currency.code
    movement = moved(kept, code)
    charged = moved(kept, code, charges_on_top=True)
    also = "" if charged == movement else f" ({opening.amount + charged} with their charges)"
    return (
        f"statement {statement_id}: opening {opening.amount} ({opening.field}) + lines "
        f"{movement} = {opening.amount + movement}{also}, but its closing balance "
        f"({closing.field}) is {closing.amount}"
    )
