"""Failures as Temporal's history keeps them: a business refusal (an account frozen, an operator
refused) or any non-retryable failure is stored with its type, message and details, and without
its stack trace, which would show the worker's code and host paths to whoever reads the history.
A retryable fault keeps its trace: that is what diagnoses the infrastructure.
"""

from __future__ import annotations

from collections.abc import Iterator

from temporalio.api.failure.v1 import Failure
from temporalio.converter import DefaultFailureConverter, PayloadConverter

from sagas.foundations import is_business_error_type

_PLAIN = DefaultFailureConverter()


def _chain(failure: Failure) -> Iterator[Failure]:
    current: Failure | None = failure
    while current is not None:
        yield current
        current = current.cause if current.HasField("cause") else None


def is_business_failure(failure: Failure) -> bool:
    """Whether the failure ends its activity or update for good: a refusal, not a fault."""
    if not failure.HasField("application_failure_info"):
        return False
    info = failure.application_failure_info
    return info.non_retryable or is_business_error_type(info.type)


class TracelessBusinessFailures(DefaultFailureConverter):
    """The SDK's failure converter, dropping the stack traces of business failures (the whole
    cause chain's); with `encode_common_attributes`, each message is then sealed by the codec."""

    def __init__(self, *, encode_common_attributes: bool = False) -> None:
        super().__init__(encode_common_attributes=encode_common_attributes)
        self._seal = encode_common_attributes

    def to_failure(
        self, exception: BaseException, payload_converter: PayloadConverter, failure: Failure
    ) -> None:
        _PLAIN.to_failure(exception, payload_converter, failure)
        if is_business_failure(failure):
            for link in _chain(failure):
                link.stack_trace = ""
        if self._seal:
            for link in _chain(failure):
                _seal(link, payload_converter)


class SealedTracelessBusinessFailures(TracelessBusinessFailures):
    """TracelessBusinessFailures with each message and remaining trace sealed by the codec."""

    def __init__(self) -> None:
        super().__init__(encode_common_attributes=True)


def _seal(failure: Failure, payload_converter: PayloadConverter) -> None:
    """As the SDK's DefaultFailureConverterWithEncodedAttributes moves them."""
    attributes = {"message": failure.message, "stack_trace": failure.stack_trace}
    failure.encoded_attributes.CopyFrom(payload_converter.to_payloads([attributes])[0])
    failure.message = "Encoded failure"
    failure.stack_trace = ""
