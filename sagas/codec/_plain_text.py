"""Plain text where a deployment encrypts: an encrypting codec marks each plain-text payload it
decodes, and the data converter refuses to turn a marked payload into a value.

Marking rather than refusing in the codec keeps the decision in the workflow: a refused input
ends the saga REJECTED, a refused update is rejected, a refused signal is dropped, and each is
counted; a codec that raised would fail the whole workflow task instead.
"""

from __future__ import annotations

from temporalio.api.common.v1 import Payload

from sagas.codec._payload_codec import KEYS_SETTING
from sagas.engine import plain_text_refused
from sagas.foundations import InvalidRequestError

PLAIN_TEXT_METADATA = "fundsaga-plain-text"
EMPTY_ENCODING = b"binary/null"


class PlainTextRefusedError(InvalidRequestError):
    """A payload with data arrived in plain text where payloads must be encrypted, or a client
    without payload keys would write one to a deployment that encrypts."""


def carries_data(payload: Payload) -> bool:
    """Whether the payload holds a value: `binary/null` (None) holds nothing to hide."""
    return payload.metadata.get("encoding") != EMPTY_ENCODING


def marked_plain(payload: Payload) -> Payload:
    marked = Payload()
    marked.CopyFrom(payload)
    marked.metadata[PLAIN_TEXT_METADATA] = b"1"
    return marked


def is_marked_plain(payload: Payload) -> bool:
    return PLAIN_TEXT_METADATA in payload.metadata


def refuse_plain_text(type_hint: type | None) -> None:
    """Count the refusal (inside a workflow) and raise PlainTextRefusedError."""
    name = getattr(type_hint, "__name__", "untyped")
    plain_text_refused(name)
    raise PlainTextRefusedError(
        "payload",
        f"{name} arrived in plain text, but this deployment encrypts: it accepts only payloads "
        f"sealed with {KEYS_SETTING}",
    )
