"""The pack's figures derived from its own entries and holds: the same code makes them and
recomputes them when the pack is verified, so a figure that disagrees was changed."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sagas.foundations import InvalidRequestError, Money, parse_money
from sagas.ledger import EntryProof
from sagas.verify.evidence._evidence_model import (
    EntryEvidence,
    HoldEvidence,
    NetEffect,
    Reversal,
    SagaEvidence,
    Total,
)


def money_of(text: str, *, field: str = "amount") -> Money:
    """The Money that prints as `text` ("-10.00 EUR"); InvalidRequestError otherwise."""
    number, _, code = text.partition(" ")
    money = parse_money(number.removeprefix("-"), code, field=field, allow_zero=True)
    money = -money if number.startswith("-") else money
    if str(money) != text:
        raise InvalidRequestError(field, f"{text!r} is not an amount as the ledger prints it")
    return money


def net_effect_of(entries: Sequence[EntryEvidence]) -> list[NetEffect]:
    """Per account, the non-zero sum of the postings, by account id."""
    sums: dict[str, Money] = {}
    for entry in entries:
        for posting in entry.postings:
            amount = money_of(posting.amount)
            before = sums.get(posting.account_id)
            sums[posting.account_id] = amount if before is None else before + amount
    return [
        NetEffect(account_id=account, amount=str(total))
        for account, total in sorted(sums.items())
        if total.minor
    ]


def moved_of(holds: Sequence[HoldEvidence], entries: Sequence[EntryEvidence]) -> Money | None:
    """What the saga moved: its first hold, else its largest posting that is not a reversal."""
    for hold in holds:
        if hold.amount is not None:
            return money_of(hold.amount)
    legs = [
        money_of(posting.amount)
        for entry in entries
        if entry.reverses_entry_id is None
        for posting in entry.postings
    ]
    positive = [leg for leg in legs if leg.minor > 0]
    return max(positive, key=lambda money: money.minor) if positive else None


def reversals_of(entries: Sequence[EntryEvidence]) -> list[Reversal]:
    return [
        Reversal(original_entry_id=entry.reverses_entry_id, reversal_entry_id=entry.entry_id)
        for entry in entries
        if entry.reverses_entry_id is not None
    ]


def totals_of(sagas: Sequence[SagaEvidence]) -> list[Total]:
    """Per currency and status: how many sagas, and the sum of what they moved."""
    counts: dict[tuple[str, str], int] = {}
    sums: dict[tuple[str, str], int] = {}
    for saga in sagas:
        moved = None if saga.moved is None else money_of(saga.moved, field="moved")
        code = moved.currency.code if moved else _named_currency(saga.requested)
        key = (code, saga.status)
        counts[key] = counts.get(key, 0) + 1
        sums[key] = sums.get(key, 0) + (moved.minor if moved else 0)
    return [
        Total(
            currency=code,
            status=status,
            sagas=counts[(code, status)],
            moved=str(Money.of(sums[(code, status)], code)) if code else "0",
        )
        for code, status in sorted(counts)
    ]


def _named_currency(requested: str | None) -> str:
    """The currency a request's amount names, when it names a known one."""
    code = (requested or "").rpartition(" ")[2]
    try:
        return Money.of(0, code).currency.code
    except InvalidRequestError:
        return ""


def entry_proof(entry: EntryEvidence) -> EntryProof:
    """The entry as its writer hashed it, from what the pack lists."""
    postings: list[tuple[str, str, int, int | None]] = []
    for posting in entry.postings:
        amount = money_of(posting.amount)
        postings.append(
            (posting.account_id, amount.currency.code, amount.minor, posting.balance_after)
        )
    link = entry.writer_link
    return EntryProof(
        entry_id=entry.entry_id,
        key=entry.idempotency_key,
        saga_id=entry.saga_id,
        kind=entry.kind,
        reverses_entry_id=entry.reverses_entry_id,
        created_at=_aware(entry.created_at),
        postings=tuple(postings),
        writer_link=None if link is None else (link.sequence, link.prev_hash),
        entry_hash=entry.entry_hash,
        key_id=entry.key_id,
        signature=entry.signature,
        seal=None,
    )


def _aware(text: str) -> datetime:
    value = datetime.fromisoformat(text)
    if value.tzinfo is None:
        raise ValueError(f"created_at {text!r} has no time zone")
    return value
