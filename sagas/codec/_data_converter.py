"""The data converter of every fundsaga client and worker: pydantic models as JSON, and with
FUNDSAGA_PAYLOAD_KEYS set, every payload and failure message encrypted."""

from __future__ import annotations

import dataclasses

from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import DataConverter, DefaultFailureConverterWithEncodedAttributes

from sagas.codec._encrypting_codec import EncryptingCodec
from sagas.codec._one_reading import OneReadingPayloadConverter
from sagas.codec._payload_codec import PayloadKeys
from sagas.foundations import Settings

ONE_READING = dataclasses.replace(
    pydantic_data_converter, payload_converter_class=OneReadingPayloadConverter
)
"""Pydantic models as JSON; a JSON object that names a key twice is refused."""


def converter_for(keys: PayloadKeys | None) -> DataConverter:
    """Plain without keys; with them, payloads sealed by the codec, and a failure's message
    and stack trace moved into an encoded attribute so that they are sealed too."""
    if keys is None:
        return ONE_READING
    return dataclasses.replace(
        ONE_READING,
        payload_codec=EncryptingCodec(keys),
        failure_converter_class=DefaultFailureConverterWithEncodedAttributes,
    )


def data_converter(settings: Settings) -> DataConverter:
    return converter_for(PayloadKeys.parse(settings.payload_keys.get_secret_value()))
