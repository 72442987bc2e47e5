"""The transfer saga: reserve → capture → credit → settle, each with its compensation."""

from __future__ import annotations

from sagas.engine import SagaDefinition, StepCall, StepDefinition, retry_spec
from sagas.transfer._request import TransferRequest
from sagas.transfer._state import TransferState

ACTION_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=3, max_interval_s=30)
COMPENSATION_RETRY = retry_spec(first_interval_s=1, multiplier=2, max_retries=10, max_interval_s=60)

TransferCall = StepCall[TransferRequest, TransferState]


def clearing_account(request: TransferRequest) -> str:
    return f"@clearing:{request.currency}"


def _step(
    name: str, describe_action: str, describe_compensation: str
) -> StepDefinition[TransferRequest]:
    return StepDefinition(
        name=name,
        action=f"transfer.{name}",
        compensation=f"transfer.{name}.undo",
        action_retry=ACTION_RETRY,
        compensation_retry=COMPENSATION_RETRY,
        describe_action=lambda r: describe_action.format(m=r.money, r=r),
        describe_compensation=lambda r: describe_compensation.format(m=r.money, r=r),
    )


TRANSFER_SAGA = SagaDefinition(
    saga_type="transfer",
    request_type=TransferRequest,
    state_type=TransferState,
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
            "credit {m} to {r.destination_account}",
            "take back {m} from {r.destination_account}",
        ),
        _step(
            "settle",
            "settle {m} {r.source_account} → {r.destination_account}",
            "take back the settlement of {m} {r.source_account} → {r.destination_account}",
        ),
    ),
)
