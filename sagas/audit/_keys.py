"""Ed25519 keys of the audit trail: the worker's signing key and the verifiers' public keys.

A record is signed over its hash (which covers every other field, the key id included), so a
record or a whole chain built without the private key fails verification, however correct its
hashes. Several public keys verify at once, so keys rotate without re-signing anything.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from sagas.foundations import InvalidRequestError, write_new_file

SIGNING_KEY_SETTING = "FUNDSAGA_AUDIT_SIGNING_KEY"
PUBLIC_KEYS_SETTING = "FUNDSAGA_AUDIT_PUBLIC_KEYS"


def key_id_of(public: Ed25519PublicKey) -> str:
    """16 hex digits of the SHA-256 of the raw public key: names the key in every record."""
    raw = public.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return hashlib.sha256(raw).hexdigest()[:16]


def public_pem(public: Ed25519PublicKey) -> bytes:
    return public.public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


@dataclass(frozen=True)
class SigningKey:
    """The private key only the worker's audit activity holds."""

    private: Ed25519PrivateKey

    @classmethod
    def generate(cls) -> SigningKey:
        return cls(Ed25519PrivateKey.generate())

    @functools.cached_property
    def public(self) -> Ed25519PublicKey:
        return self.private.public_key()

    @functools.cached_property
    def key_id(self) -> str:
        """Derived once per key: every signed ledger row names it."""
        return key_id_of(self.public)

    def sign(self, message: bytes) -> str:
        return base64.b64encode(self.private.sign(message)).decode("ascii")

    def private_pem(self) -> bytes:
        return self.private.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    def write(self, path: Path) -> Path:
        """Write the private key (owner-only) and its public key beside it (`.pub`)."""
        path.parent.mkdir(parents=True, exist_ok=True)
        write_new_file(path, self.private_pem(), 0o600)
        public_path = path.with_suffix(".pub")
        public_path.write_bytes(public_pem(self.public))
        return public_path

    @classmethod
    def read(cls, path: Path) -> SigningKey:
        try:
            loaded = serialization.load_pem_private_key(path.read_bytes(), password=None)
        except FileNotFoundError:
            raise InvalidRequestError(
                SIGNING_KEY_SETTING, f"no key at {path}: make one with `fundsaga audit keygen`"
            ) from None
        except (ValueError, TypeError) as exc:
            raise InvalidRequestError(SIGNING_KEY_SETTING, f"{path}: not a key ({exc})") from exc
        if not isinstance(loaded, Ed25519PrivateKey):
            raise InvalidRequestError(SIGNING_KEY_SETTING, f"{path}: not an Ed25519 key")
        return cls(loaded)


@dataclass(frozen=True)
class Keyring:
    """The public keys a verifier trusts, by key id."""

    keys: dict[str, Ed25519PublicKey] = field(default_factory=dict)

    @classmethod
    def of(cls, publics: Iterable[Ed25519PublicKey]) -> Keyring:
        return cls({key_id_of(public): public for public in publics})

    @classmethod
    def read(cls, paths: Iterable[Path]) -> Keyring:
        publics: list[Ed25519PublicKey] = []
        for path in paths:
            try:
                loaded = serialization.load_pem_public_key(path.read_bytes())
            except (OSError, ValueError) as exc:
                raise InvalidRequestError(PUBLIC_KEYS_SETTING, f"{path}: {exc}") from exc
            if not isinstance(loaded, Ed25519PublicKey):
                raise InvalidRequestError(PUBLIC_KEYS_SETTING, f"{path}: not an Ed25519 key")
            publics.append(loaded)
        return cls.of(publics)

    def problem(self, key_id: str, signature: str, message: bytes) -> str | None:
        """Why the signature does not prove the message, or None when it does."""
        public = self.keys.get(key_id)
        if public is None:
            return f"is signed by key {key_id!r}, which is not a trusted key"
        try:
            public.verify(_signature_bytes(signature), message)
        except (InvalidSignature, ValueError):
            return f"carries a signature that key {key_id!r} did not make"
        return None


def _signature_bytes(signature: str) -> bytes:
    """The signature's bytes, from its one canonical base64 spelling only: a digit whose unused
    bits differ decodes to the same bytes, but it is still a change to the stored record."""
    raw = base64.b64decode(signature, validate=True)
    if base64.b64encode(raw).decode() != signature:
        raise ValueError("signature is not in canonical base64")
    return raw


@dataclass(frozen=True)
class AuditKeys:
    """What a process holds: the signing key (workers only) and the trusted public keys."""

    keyring: Keyring
    signer: SigningKey | None = None

    @classmethod
    def for_writer(cls, signer: SigningKey, trusted: Keyring | None = None) -> AuditKeys:
        keys = dict(trusted.keys) if trusted else {}
        keys[signer.key_id] = signer.public
        return cls(Keyring(keys), signer)

    def require_signer(self) -> SigningKey:
        if self.signer is None:
            raise InvalidRequestError(
                SIGNING_KEY_SETTING,
                "this process holds no signing key: only the worker's audit activity appends",
            )
        return self.signer
