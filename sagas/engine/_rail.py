"""A step whose ledger entry is money a rail moves: the rail's statement books it too, so
reconciliation matches the two (sagas.reconcile)."""

from __future__ import annotations

import hashlib
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


END_TO_END_PREFIX = "FS"
END_TO_END_LENGTH = 35
"""ISO 20022's limit on EndToEndId (Max35Text), and MT940's on a customer reference is less:
rails keep no longer reference, so the key is not sent as it is."""


def end_to_end_id(reference_key: str) -> str:
    """The reference a rail carries for the movement whose key is `reference_key`: short enough
    for every rail, the same whoever derives it (the step that sends it, the reconciliation)."""
    digest = hashlib.sha256(reference_key.encode()).hexdigest()
    return END_TO_END_PREFIX + digest[: END_TO_END_LENGTH - len(END_TO_END_PREFIX)]
