"""Payloads read one way only: a JSON payload whose object names a key twice is refused.

A workflow input written by hand (`temporal workflow start --input`), an update or a signal
can carry such an object; the SDK's pydantic converter would keep the last value.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import zip_longest
from typing import Any

from temporalio.api.common.v1 import Payload
from temporalio.common import RawValue
from temporalio.contrib.pydantic import PydanticJSONPlainPayloadConverter, PydanticPayloadConverter
from temporalio.converter import CompositePayloadConverter

from sagas.codec._plain_text import is_marked_plain, refuse_plain_text
from sagas.foundations import InvalidRequestError, loads_one_reading


class OneReadingJSONConverter(PydanticJSONPlainPayloadConverter):
    """The pydantic JSON converter, refusing duplicate keys (InvalidRequestError naming it)."""

    def from_payload(self, payload: Payload, type_hint: type | None = None) -> Any:
        try:
            loads_one_reading(payload.data)
        except InvalidRequestError:
            if type_hint is None:
                # An untyped argument (a saga's `*inputs`) stays raw, so that the typed decode
                # of the request refuses it and the saga ends REJECTED naming the key.
                return RawValue(payload)
            raise
        return super().from_payload(payload, type_hint)


class OneReadingPayloadConverter(CompositePayloadConverter):
    """The pydantic payload converter with `OneReadingJSONConverter` for JSON; a payload the
    encrypting codec marked as plain text is refused (PlainTextRefusedError), except as a raw
    value, which the workflow decodes and refuses itself."""

    def __init__(self) -> None:
        json_converter = OneReadingJSONConverter()
        super().__init__(
            *(
                json_converter if isinstance(c, PydanticJSONPlainPayloadConverter) else c
                for c in PydanticPayloadConverter().converters.values()
            )
        )

    def from_payloads(
        self, payloads: Sequence[Payload], type_hints: list[type] | None = None
    ) -> list[Any]:
        values: list[Any] = []
        for payload, type_hint in zip_longest(payloads, type_hints or []):
            if type_hint is RawValue or not is_marked_plain(payload):
                values += super().from_payloads([payload], [type_hint] if type_hint else None)
            elif type_hint is None:
                # A saga's untyped `*inputs` stay raw, marked: its typed decode refuses them.
                values.append(RawValue(payload))
            else:
                refuse_plain_text(type_hint)
        return values
