"""How a step's failure is stored: a business refusal without its stack trace (the whole cause
chain's), a retryable fault with it, since that is what diagnoses the infrastructure; with
payload keys the message and a fault's trace are sealed as before."""

from __future__ import annotations

import pytest
from temporalio.api.failure.v1 import Failure
from temporalio.converter import DataConverter
from temporalio.exceptions import ApplicationError

from sagas.codec import PayloadKeys, converter_for
from sagas.engine import to_application_error
from sagas.foundations import AccountFrozenError, TransientError

KEYS = PayloadKeys.parse(PayloadKeys.generate("test-2026-11"))


def stored(converter: DataConverter, err: Exception) -> Failure:
    """The failure an activity that raised `err` reports, as the history keeps it."""
    failure = Failure()
    try:
        raise to_application_error(err, 1) from err
    except ApplicationError as raised:
        converter.failure_converter.to_failure(raised, converter.payload_converter, failure)
    return failure


def traces(failure: Failure) -> list[str]:
    found = [failure.stack_trace]
    while failure.HasField("cause"):
        failure = failure.cause
        found.append(failure.stack_trace)
    return found


def test_a_refusal_keeps_type_and_message_and_drops_every_trace() -> None:
    failure = stored(converter_for(None), AccountFrozenError("account 'a-1' is frozen"))

    assert failure.application_failure_info.type == "AccountFrozenError"
    assert failure.message == "account 'a-1' is frozen"
    assert failure.cause.application_failure_info.type == "AccountFrozenError"
    assert traces(failure) == ["", ""]


def test_a_retryable_fault_keeps_its_trace() -> None:
    failure = stored(converter_for(None), TransientError("ledger database unreachable"))

    assert not failure.application_failure_info.non_retryable
    assert ".py" in failure.stack_trace


@pytest.mark.parametrize(
    ("err", "traced"),
    [(AccountFrozenError("account 'a-1' is frozen"), False), (TransientError("db down"), True)],
    ids=["refusal", "fault"],
)
def test_with_keys_the_message_is_sealed_and_only_a_fault_s_trace_kept(
    err: Exception, traced: bool
) -> None:
    converter = converter_for(KEYS)
    failure = stored(converter, err)
    sealed = converter.payload_converter.from_payload(failure.encoded_attributes)

    assert (failure.message, failure.stack_trace) == ("Encoded failure", "")
    assert sealed["message"] == str(err)
    assert bool(sealed["stack_trace"]) is traced
