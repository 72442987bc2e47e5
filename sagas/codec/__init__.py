"""What crosses the wire to Temporal: the data converter and the payload encryption codec."""

from sagas.codec._data_converter import converter_for, data_converter
from sagas.codec._payload_codec import (
    KEYS_SETTING,
    EncryptingCodec,
    PayloadCipher,
    PayloadDecryptionError,
    PayloadKeys,
)

__all__ = [
    "KEYS_SETTING",
    "EncryptingCodec",
    "PayloadCipher",
    "PayloadDecryptionError",
    "PayloadKeys",
    "converter_for",
    "data_converter",
]
