"""The ledger's rail movements: the entries of the steps that saga types declare a rail moves
(`StepDefinition.rail`), whatever the saga type."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sagas.engine import RailEffect, SagaDefinition, action_key_of, end_to_end_id
from sagas.foundations import Money
from sagas.ledger import EntryView, Ledger
from sagas.reconcile.formats import LineDirection, LineKind


@dataclass(frozen=True, kw_only=True)
class RailMovement:
    """A journal entry the rail's statement should book."""

    entry_id: int
    entry_hash: str
    saga_id: str
    saga_type: str
    step: str
    reference: str
    """The end-to-end id the rail carries for it: derived from the action key of the declared
    reference step (`end_to_end_id`)."""
    reference_key: str
    """That action key: the payout's key at the provider, say."""
    direction: LineDirection
    kind: LineKind
    amount: Money
    booked_at: datetime


def rail_steps(
    definitions: Iterable[SagaDefinition[Any, Any]],
) -> list[tuple[str, str, RailEffect]]:
    """(saga type, step, its rail effect) of every step declared a rail movement."""
    return [
        (definition.saga_type, step.name, step.rail)
        for definition in definitions
        for step in definition.steps
        if step.rail is not None
    ]


def rail_movements(
    ledger: Ledger, definitions: Iterable[SagaDefinition[Any, Any]]
) -> list[RailMovement]:
    """Every rail movement the ledger holds, oldest first."""
    found = [
        _movement(entry, saga_type, step, rail)
        for saga_type, step, rail in rail_steps(definitions)
        for entry in ledger.entries(action_of=(saga_type, step))
        if entry.saga_id is not None and entry.reverses_entry_id is None
    ]
    return sorted(found, key=lambda movement: movement.entry_id)


def _movement(entry: EntryView, saga_type: str, step: str, rail: RailEffect) -> RailMovement:
    assert entry.saga_id is not None
    credits = [posting.amount for posting in entry.postings if posting.amount.minor > 0]
    amount = credits[0]
    for more in credits[1:]:
        amount = amount + more
    return RailMovement(
        entry_id=entry.entry_id,
        entry_hash=entry.entry_hash,
        saga_id=entry.saga_id,
        saga_type=saga_type,
        step=step,
        reference=end_to_end_id(action_key_of(entry.saga_id, rail.reference_step)),
        reference_key=action_key_of(entry.saga_id, rail.reference_step),
        direction=LineDirection.DEBIT if rail.outgoing else LineDirection.CREDIT,
        kind=LineKind(rail.kind),
        amount=amount,
        booked_at=entry.created_at,
    )
