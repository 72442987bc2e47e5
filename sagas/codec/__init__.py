"""What crosses the wire to Temporal: the data converter, the payload encryption codec, and
how a deployment that encrypts refuses plain text."""

from sagas.codec._data_converter import converter_for, data_converter
from sagas.codec._encrypting_codec import EncryptingCodec
from sagas.codec._namespace_marker import (
    ENCRYPTION_MARKER,
    ENCRYPTION_REQUIRED,
    encrypts,
    mark_namespace_encrypted,
    namespace_requires_encryption,
    refuse_plain_text_start,
)
from sagas.codec._payload_codec import (
    KEYS_SETTING,
    PayloadCipher,
    PayloadDecryptionError,
    PayloadKeys,
)
from sagas.codec._plain_text import PLAIN_TEXT_METADATA, PlainTextRefusedError
from sagas.codec._record_sealing import SEALED_FIELD, RecordSealer

__all__ = [
    "ENCRYPTION_MARKER",
    "ENCRYPTION_REQUIRED",
    "KEYS_SETTING",
    "PLAIN_TEXT_METADATA",
    "SEALED_FIELD",
    "EncryptingCodec",
    "PayloadCipher",
    "PayloadDecryptionError",
    "PayloadKeys",
    "PlainTextRefusedError",
    "RecordSealer",
    "converter_for",
    "data_converter",
    "encrypts",
    "mark_namespace_encrypted",
    "namespace_requires_encryption",
    "refuse_plain_text_start",
]
