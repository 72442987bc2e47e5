"""The transfer saga: reserve → capture → credit → settle → release.

Every step but the last has a compensation. The credit lands pending on the destination: it
counts in the balance but cannot be spent until `release`, the last step and the saga's pivot,
makes it final.
"""

from __future__ import annotations

from dataclasses import replace

from sagas.engine import SagaDefinition, StepCall, StepDefinition, retry_spec
from sagas.transfer._request import TransferRequest
from sagas.transfer._state import TransferState

ACTION_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=3, max_interval_s=30)
COMPENSATION_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=10, max_interval_s=60)

TransferCall = StepCall[TransferRequest, TransferState]


def clearing_account(request: TransferRequest) -> str:
    return f"@clearing:{request.currency}"


def _step(
    name: str, describe_action: str, describe_compensation: str | None
) -> StepDefinition[TransferRequest]:
    """A step whose compensation is `transfer.<name>.undo`; none when it is not described."""
    return StepDefinition(
        name=name,
        action=f"transfer.{name}",
        compensation=None if describe_compensation is None else f"transfer.{name}.undo",
        action_retry=ACTION_RETRY,
        compensation_retry=COMPENSATION_RETRY,
        describe_action=lambda r: describe_action.format(m=r.money, r=r),
        describe_compensation=lambda r: (describe_compensation or "nothing to undo").format(
            m=r.money, r=r
        ),
    )


RELEASE = replace(
    _step("release", "release {m} to {r.destination_account}: spendable from now on", None),
    pivot=True,
)
"""The saga's point of no return: once the payee may spend the money, nothing can take it back.
A failure of it retries forward and then parks for an operator; a cancel or the deadline that
arrives once it has started compensates nothing."""

TRANSFER_SAGA = SagaDefinition(
    saga_type="transfer",
    request_type=TransferRequest,
    state_type=TransferState,
    parties=("source_account", "destination_account"),
    reference="reference",
    steps=(
        _step(
            "reserve",
            "hold {m} on {r.source_account}",
            "release the hold of {m} on {r.source_account}",
        ),
        _step(
            "capture",
            "capture {m} from {r.source_account} into clearing",
            "return {m} from clearing to {r.source_account}",
        ),
        _step(
            "credit",
            "credit {m} to {r.destination_account}, pending until released",
            "take back the pending {m} from {r.destination_account}",
        ),
        _step(
            "settle",
            "settle {m} {r.source_account} → {r.destination_account}",
            "take back the settlement of {m} {r.source_account} → {r.destination_account}",
        ),
        RELEASE,
    ),
)
