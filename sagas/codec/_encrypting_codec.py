"""The Temporal payload codec of a deployment with payload keys: it seals every payload with
data, authenticates public ones, and marks every plain-text payload it is handed, so that the
data converter refuses it (sagas.codec._plain_text). A sealed payload keeps its ledger receipt
(keys and hashes of journal entries, no money data) in clear beside the sealed copy, so that an
auditor without payload keys reads it."""

from __future__ import annotations

from collections.abc import Sequence

from temporalio.api.common.v1 import Payload
from temporalio.converter import PayloadCodec

from sagas.codec._payload_codec import ENCODING, PayloadCipher, PayloadKeys
from sagas.codec._plain_text import carries_data, marked_plain
from sagas.codec._public_payloads import PublicPayloads, is_public
from sagas.engine import LEDGER_RECEIPT_METADATA


class EncryptingCodec(PayloadCodec):
    """Seals and opens payloads with `PayloadCipher`; fails closed on plain text."""

    def __init__(self, keys: PayloadKeys) -> None:
        self.keys = keys
        self._cipher = PayloadCipher(keys)
        self._public = PublicPayloads(keys)

    async def encode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._encode_one(payload) for payload in payloads]

    async def decode(self, payloads: Sequence[Payload]) -> list[Payload]:
        return [self._decode_one(payload) for payload in payloads]

    def _encode_one(self, payload: Payload) -> Payload:
        if is_public(payload):
            return self._public.authenticate(payload)
        (sealed,) = self._cipher.seal([payload])
        receipt = payload.metadata.get(LEDGER_RECEIPT_METADATA)
        if receipt is not None:
            sealed.metadata[LEDGER_RECEIPT_METADATA] = receipt
        return sealed

    def _decode_one(self, payload: Payload) -> Payload:
        if payload.metadata.get("encoding") == ENCODING:
            (opened,) = self._cipher.open([payload])
            return opened
        if is_public(payload):
            return self._public.verified(payload) or marked_plain(payload)
        return marked_plain(payload) if carries_data(payload) else payload
