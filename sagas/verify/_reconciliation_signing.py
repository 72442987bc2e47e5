"""The reconciliation pack as one JSON document with its detached signature, signed as the
compensation audit's report is (`_evidence_signing`): Ed25519 over the canonical JSON of the
document but its `signature` member, which holds the pack's `format`."""

from __future__ import annotations

import json
from dataclasses import dataclass

from pydantic import JsonValue

from sagas.audit import SigningKey
from sagas.verify._evidence_model import Signature
from sagas.verify._evidence_signing import SIGNATURE_FIELD, signed_message
from sagas.verify._reconciliation_model import ReconciliationPack


@dataclass(frozen=True)
class ReconciliationReport:
    """A pack and its signature; None when no key was at hand to sign it."""

    pack: ReconciliationPack
    signature: Signature | None

    def document(self) -> dict[str, JsonValue]:
        data: dict[str, JsonValue] = self.pack.model_dump(mode="json")
        data[SIGNATURE_FIELD] = (
            None if self.signature is None else self.signature.model_dump(mode="json")
        )
        return data

    def to_json(self) -> str:
        """Indented, for people; the signature does not depend on the layout."""
        return json.dumps(self.document(), indent=2, ensure_ascii=False) + "\n"


def sign_reconciliation(pack: ReconciliationPack, key: SigningKey | None) -> ReconciliationReport:
    if key is None:
        return ReconciliationReport(pack, None)
    message = signed_message(pack.model_dump(mode="json"))
    return ReconciliationReport(pack, Signature(key_id=key.key_id, value=key.sign(message)))
