"""Payloads that hold no secret (audit receipts) stay readable, with an HMAC-SHA256 under a
key derived from the payload key: an auditor without payload keys reads them, and a worker
tells them from plain text written by someone without the keys."""

from __future__ import annotations

import hashlib
import hmac

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from temporalio.api.common.v1 import Payload

from sagas.codec._payload_codec import PayloadKeys
from sagas.engine import PUBLIC_METADATA

MAC_METADATA = "fundsaga-mac"
MAC_KEY_METADATA = "fundsaga-mac-key-id"
_MAC_KEY_INFO = b"fundsaga public payload mac"


def is_public(payload: Payload) -> bool:
    return PUBLIC_METADATA in payload.metadata


def _mac_key(secret: bytes) -> bytes:
    return HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_MAC_KEY_INFO).derive(secret)


def _without_mac(payload: Payload) -> Payload:
    bare = Payload()
    bare.CopyFrom(payload)
    for name in (MAC_METADATA, MAC_KEY_METADATA):
        bare.metadata.pop(name, None)
    return bare


class PublicPayloads:
    """Authenticates public payloads under the active key; verifies under any listed one."""

    def __init__(self, keys: PayloadKeys) -> None:
        self._active_id = keys.active_id
        self._keys = {key_id: _mac_key(secret) for key_id, secret in keys.keys}

    def authenticate(self, payload: Payload) -> Payload:
        signed = _without_mac(payload)
        signed.metadata[MAC_KEY_METADATA] = self._active_id.encode()
        signed.metadata[MAC_METADATA] = self._mac(self._active_id, signed)
        return signed

    def verified(self, payload: Payload) -> Payload | None:
        """The payload without its MAC when the MAC proves it, else None."""
        key_id = payload.metadata.get(MAC_KEY_METADATA, b"").decode(errors="replace")
        if key_id not in self._keys:
            return None
        unsigned = _without_mac(payload)
        unsigned.metadata[MAC_KEY_METADATA] = key_id.encode()
        expected = self._mac(key_id, unsigned)
        if not hmac.compare_digest(expected, payload.metadata.get(MAC_METADATA, b"")):
            return None
        return _without_mac(payload)

    def _mac(self, key_id: str, payload: Payload) -> bytes:
        message = payload.SerializeToString(deterministic=True)
        return hmac.new(self._keys[key_id], message, hashlib.sha256).digest()
