"""The report as one JSON document: the pack, then its detached signature.

The signature is Ed25519 over the canonical JSON (sorted keys, no whitespace, UTF-8) of the
document without its `signature` member, so anyone holding the public key checks it with any
Ed25519 library: the layout of the file is not what was signed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, JsonValue

from sagas.audit import Keyring, SigningKey
from sagas.foundations import canonical_json
from sagas.verify.evidence._evidence_model import EvidencePack, Signature

SIGNATURE_FIELD = "signature"
PackT = TypeVar("PackT", bound=BaseModel)


@dataclass(frozen=True)
class SignedPack(Generic[PackT]):
    """A pack and its detached signature; None when no key was at hand to sign it."""

    pack: PackT
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


@dataclass(frozen=True)
class EvidenceReport(SignedPack[EvidencePack]):
    """The compensation audit's pack and its signature."""


def pack_signature(pack: BaseModel, key: SigningKey | None) -> Signature | None:
    """The signature of `pack` by `key`, None without a key."""
    if key is None:
        return None
    return Signature(
        key_id=key.key_id, value=key.sign(signed_message(pack.model_dump(mode="json")))
    )


def signed_message(document: Mapping[str, Any]) -> bytes:
    """What the signature covers: the canonical JSON of the document but its signature."""
    content = {name: value for name, value in document.items() if name != SIGNATURE_FIELD}
    return canonical_json(content).encode("utf-8")


def sign_pack(pack: EvidencePack, key: SigningKey | None) -> EvidenceReport:
    return EvidenceReport(pack, pack_signature(pack, key))


def report_signature_problem(
    document: Mapping[str, Any], signature: Signature | None, keyring: Keyring
) -> str | None:
    """Why the document's signature does not prove it, or None when it does."""
    if signature is None:
        return "the report is not signed: nothing proves who made it or that it is unchanged"
    found = keyring.problem(signature.key_id, signature.value, signed_message(document))
    return None if found is None else f"the report {found}"
