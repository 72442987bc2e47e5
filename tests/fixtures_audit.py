"""The test suite's audit keys: one fixed signing key, as every worker of a deployment holds.

Derived from a constant so that processes the tests spawn hold the same key.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from sagas.audit import AuditKeys, SigningKey, public_pem

TEST_SIGNER = SigningKey(
    Ed25519PrivateKey.from_private_bytes(hashlib.sha256(b"fundsaga test signing key").digest())
)
TEST_KEYS = AuditKeys.for_writer(TEST_SIGNER)
"""Signs (the worker's role) and verifies with the same key pair."""


def write_public_key(directory: Path) -> Path:
    """The test key's public half as a PEM file, for FUNDSAGA_AUDIT_PUBLIC_KEYS."""
    path = directory / "audit-test.pub"
    path.write_bytes(public_pem(TEST_SIGNER.public))
    return path
