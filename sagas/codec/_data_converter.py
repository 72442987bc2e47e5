"""The data converter of every fundsaga client and worker: pydantic models as JSON, business
failures without stack traces, and with FUNDSAGA_PAYLOAD_KEYS set, every payload and failure
message encrypted."""

from __future__ import annotations

import dataclasses

from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import DataConverter

from sagas.codec._encrypting_codec import EncryptingCodec
from sagas.codec._failures import SealedTracelessBusinessFailures, TracelessBusinessFailures
from sagas.codec._one_reading import OneReadingPayloadConverter
from sagas.codec._payload_codec import PayloadKeys
from sagas.foundations import Settings

ONE_READING = dataclasses.replace(
    pydantic_data_converter,
    payload_converter_class=OneReadingPayloadConverter,
    failure_converter_class=TracelessBusinessFailures,
)
"""Pydantic models as JSON; a JSON object that names a key twice is refused; a business
failure is stored without its stack trace."""


def converter_for(keys: PayloadKeys | None) -> DataConverter:
    """Plain without keys; with them, payloads sealed by the codec, and a failure's message
    (and a fault's stack trace) moved into an encoded attribute so that they are sealed too."""
    if keys is None:
        return ONE_READING
    return dataclasses.replace(
        ONE_READING,
        payload_codec=EncryptingCodec(keys),
        failure_converter_class=SealedTracelessBusinessFailures,
    )


def data_converter(settings: Settings) -> DataConverter:
    return converter_for(PayloadKeys.parse(settings.payload_keys.get_secret_value()))
