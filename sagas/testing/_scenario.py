"""What the kit needs of a saga type to test it: accounts, a request, and the saga's invariants."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sagas.engine import Phase, SagaDefinition, SagaOutcome, SagaRequest
from sagas.foundations import Money
from sagas.ledger import Ledger
from sagas.registry import SagaType

if TYPE_CHECKING:
    from sagas.testing._matrix_case import Expected, MatrixCase

KeyCheck = Callable[[str], bool]
KeyScheme = Callable[[str, SagaDefinition[Any, Any]], KeyCheck]
"""(saga id, definition) -> whether a ledger key belongs to that saga's steps."""
ExternalCheck = Callable[[SagaRequest, SagaOutcome], Iterable[str]]
"""(request, outcome of the ended saga) -> findings about its effects outside the ledger."""


def step_keys(saga_id: str, definition: SagaDefinition[Any, Any]) -> KeyCheck:
    """The engine's key scheme: `<saga id>:<step>:<action|compensation>`, optionally followed by
    `:<suffix>`, as `StepCall.effect_key(suffix)` and `StepCall.action_key(...)` build them."""
    bases = {f"{saga_id}:{step.name}:{phase}" for step in definition.steps for phase in Phase}

    def belongs(key: str) -> bool:
        return key in bases or any(
            key.startswith(f"{base}:") and len(key) > len(base) + 1 for base in bases
        )

    return belongs


def _nowhere(_request: SagaRequest) -> Iterable[str]:
    return ()


@dataclass(frozen=True, kw_only=True)
class SagaScenario:
    """One saga type as the testing kit runs it: the fault matrix and the replay recorder both
    start from this.

    The invariants default to the engine's own: customers' money stays with customers, every
    key follows the step key scheme, and each fault ends as the kit derives it from the steps.
    """

    saga_type: SagaType
    fund: Callable[[Ledger], None]
    """Open and fund the accounts `request` names, on a fresh ledger."""
    request: Callable[[str], SagaRequest]
    """A request with this idempotency key that completes when nothing fails."""
    completed_effect: Callable[[SagaRequest], Mapping[str, Money]]
    """The saga's net effect per account once it has COMPLETED (accounts it leaves at zero
    omitted); a saga that ends otherwise must leave none."""
    money_leaves_through: Callable[[SagaRequest], Iterable[str]] = _nowhere
    """The system accounts customers' money may legitimately end on, or come from: a fee's
    income account, or @funding, the outside world, for a payout. Every other change of the
    customers' money is a finding."""
    key_scheme: KeyScheme = step_keys
    expected_end: Callable[[MatrixCase], Expected] | None = None
    """The end of a fault case when it differs from the one the kit derives (`case.expected`)."""
    external_effects: ExternalCheck | None = None
    """The saga's effects outside the ledger (a bank's, a provider's), checked after each case:
    the kit sees the ledger and the audit trail only. Returns findings (or raises
    AssertionError, a finding too); None: nothing outside the ledger is checked."""

    @property
    def name(self) -> str:
        return self.saga_type.name
