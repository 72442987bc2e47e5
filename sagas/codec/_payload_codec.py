"""Payloads encrypted with AES-256-GCM before they reach Temporal, so that no amount, account
id or reference sits in a history in plain text.

Each encrypted payload is the original payload (serialised) sealed under one key: its data is
the 12-byte nonce and the ciphertext with its tag; its metadata names the key by id, which is
also the associated data, so a payload cannot be passed off as sealed under another key.
Decoding leaves unencrypted payloads as they are: histories written before encryption was
turned on stay readable, and so do those of a rotation's old keys while they are listed.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from temporalio.api.common.v1 import Payload

from sagas.foundations import InvalidRequestError

ENCODING = b"binary/encrypted"
KEY_ID_METADATA = "encryption-key-id"
CIPHER_METADATA = "encryption-cipher"
CIPHER = b"AES-256-GCM"
KEY_BYTES = 32
NONCE_BYTES = 12
KEYS_SETTING = "FUNDSAGA_PAYLOAD_KEYS"
_KEY_ID = re.compile(r"^[A-Za-z0-9._-]{1,64}$")


class PayloadDecryptionError(Exception):
    """A payload that cannot be decrypted: its key is not configured, or it was altered."""


@dataclass(frozen=True)
class PayloadKeys:
    """Keys by id; the first encrypts, every one decrypts."""

    keys: tuple[tuple[str, bytes], ...]

    @classmethod
    def parse(cls, spec: str) -> PayloadKeys | None:
        """`ID=BASE64[,ID=BASE64...]` (32-byte keys); None when `spec` is empty. Errors name
        the setting and the key's position or id, never the key."""
        entries = [entry.strip() for entry in spec.split(",") if entry.strip()]
        if not entries:
            return None
        keys: list[tuple[str, bytes]] = []
        for number, entry in enumerate(entries, start=1):
            key_id, separator, encoded = entry.partition("=")
            key_id = key_id.strip()
            if not separator or not _KEY_ID.match(key_id):
                raise InvalidRequestError(
                    KEYS_SETTING,
                    f"entry {number} is not ID=BASE64 with an id of 1-64 letters, digits, . _ -",
                )
            try:
                secret = base64.b64decode(encoded.strip(), validate=True)
            except (binascii.Error, ValueError):
                raise InvalidRequestError(KEYS_SETTING, f"key {key_id!r} is not base64") from None
            if len(secret) != KEY_BYTES:
                raise InvalidRequestError(
                    KEYS_SETTING, f"key {key_id!r} has {len(secret)} bytes, not {KEY_BYTES}"
                )
            if any(key_id == known for known, _ in keys):
                raise InvalidRequestError(KEYS_SETTING, f"key id {key_id!r} is listed twice")
            keys.append((key_id, secret))
        return cls(tuple(keys))

    @staticmethod
    def generate(key_id: str) -> str:
        """A new entry for FUNDSAGA_PAYLOAD_KEYS: 32 random bytes under `key_id`."""
        return f"{key_id}={base64.b64encode(os.urandom(KEY_BYTES)).decode()}"

    @property
    def active_id(self) -> str:
        return self.keys[0][0]


class PayloadCipher:
    """The synchronous sealing and opening of payloads, for the codec and the codec server."""

    def __init__(self, keys: PayloadKeys) -> None:
        self._active_id = keys.active_id
        self._ciphers = {key_id: AESGCM(secret) for key_id, secret in keys.keys}

    def seal(self, payloads: Iterable[Payload]) -> list[Payload]:
        key_id = self._active_id.encode()
        cipher = self._ciphers[self._active_id]
        sealed = []
        for payload in payloads:
            nonce = os.urandom(NONCE_BYTES)
            data = nonce + cipher.encrypt(nonce, payload.SerializeToString(), key_id)
            metadata = {"encoding": ENCODING, KEY_ID_METADATA: key_id, CIPHER_METADATA: CIPHER}
            sealed.append(Payload(metadata=metadata, data=data))
        return sealed

    def open(self, payloads: Iterable[Payload]) -> list[Payload]:
        return [self._open_one(payload) for payload in payloads]

    def _open_one(self, payload: Payload) -> Payload:
        if payload.metadata.get("encoding") != ENCODING:
            return payload
        key_id = payload.metadata.get(KEY_ID_METADATA, b"").decode(errors="replace")
        cipher = self._ciphers.get(key_id)
        if cipher is None:
            raise PayloadDecryptionError(
                f"payload sealed under key {key_id!r}, which {KEYS_SETTING} does not list"
            )
        nonce, sealed = payload.data[:NONCE_BYTES], payload.data[NONCE_BYTES:]
        try:
            plain = cipher.decrypt(nonce, sealed, key_id.encode())
        except InvalidTag:
            raise PayloadDecryptionError(
                f"payload sealed under key {key_id!r} does not open: altered, or another key "
                "of that id"
            ) from None
        return Payload.FromString(plain)
