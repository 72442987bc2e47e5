"""A step whose ledger entry is money a rail moves: the rail's statement books it too, so
reconciliation matches the two (sagas.reconcile)."""

from __future__ import annotations

from dataclasses import dataclass

from sagas.engine._status import Phase


@dataclass(frozen=True, kw_only=True)
class RailEffect:
    """Declared on a step (`StepDefinition.rail`) whose action posts what the rail settles."""

    reference_step: str
    """The step whose action key the rail knows the movement by (the end-to-end id sent)."""
    outgoing: bool = True
    """Money leaves through the rail (a debit on its statement); False: it comes in."""
    kind: str = "payout"
    """The kind of statement line it matches (sagas.reconcile.LineKind)."""


def action_key_of(saga_id: str, step_name: str) -> str:
    """The idempotency key of a step's action in a saga: what `StepCall.action_key` gives."""
    return f"{saga_id}:{step_name}:{Phase.ACTION.value}"
