"""An audit record's payload sealed before it is stored, when the deployment encrypts.

What an auditor needs to list and judge sagas stays readable (status, step, reason, error
class, times, snapshot hashes); every other field (the request with its accounts, amount and
reference, error messages, compensations, operator notes) is sealed with AES-256-GCM under the
active payload key. The record's hash and signature cover the sealed form, so `audit verify`
needs the audit public keys only.
"""

from __future__ import annotations

import base64
import os

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from pydantic import JsonValue

from sagas.codec._payload_codec import (
    CIPHER,
    KEYS_SETTING,
    NONCE_BYTES,
    PayloadDecryptionError,
    PayloadKeys,
)
from sagas.foundations import canonical_json, loads_one_reading

SEALED_FIELD = "sealed"
READABLE_FIELDS = frozenset(
    {
        "saga_id",
        "saga_type",
        "run_id",
        "status",
        "failed_step",
        "reason",
        "error_class",
        "attempts",
        "pivot",
        "pivot_passed",
        "snapshot_hashes",
        "started_at",
        "ended_at",
        "duration_ms",
    }
)
_ASSOCIATED = b"fundsaga audit payload:"


class RecordSealer:
    """Seals the fields of a record's payload outside READABLE_FIELDS; opens them again."""

    def __init__(self, keys: PayloadKeys) -> None:
        self._active_id = keys.active_id
        self._ciphers = {key_id: AESGCM(secret) for key_id, secret in keys.keys}

    def seal(self, payload: dict[str, JsonValue]) -> dict[str, JsonValue]:
        readable = {name: value for name, value in payload.items() if name in READABLE_FIELDS}
        hidden = {name: value for name, value in payload.items() if name not in READABLE_FIELDS}
        if not hidden:
            return readable
        nonce = os.urandom(NONCE_BYTES)
        plain = canonical_json(hidden).encode()
        sealed = nonce + self._ciphers[self._active_id].encrypt(
            nonce, plain, _ASSOCIATED + self._active_id.encode()
        )
        envelope: dict[str, JsonValue] = {
            "key_id": self._active_id,
            "cipher": CIPHER.decode(),
            "data": base64.b64encode(sealed).decode(),
        }
        return {**readable, SEALED_FIELD: envelope}

    def open(self, payload: dict[str, JsonValue]) -> dict[str, JsonValue]:
        """The payload as the engine wrote it; PayloadDecryptionError if its key is not
        listed or it was altered."""
        envelope = payload.get(SEALED_FIELD)
        if not isinstance(envelope, dict):
            return dict(payload)
        key_id = str(envelope.get("key_id"))
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            raise PayloadDecryptionError(
                f"audit payload sealed under key {key_id!r}, which {KEYS_SETTING} does not list"
            )
        data = base64.b64decode(str(envelope.get("data")))
        try:
            plain = cipher.decrypt(
                data[:NONCE_BYTES], data[NONCE_BYTES:], _ASSOCIATED + key_id.encode()
            )
        except InvalidTag:
            raise PayloadDecryptionError(
                f"audit payload sealed under key {key_id!r} does not open: altered"
            ) from None
        hidden: dict[str, JsonValue] = loads_one_reading(plain)
        readable = {name: value for name, value in payload.items() if name != SEALED_FIELD}
        return {**readable, **hidden}
