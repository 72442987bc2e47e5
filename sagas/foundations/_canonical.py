"""Canonical JSON: what fundsaga hashes (request fingerprints, snapshots, audit records)."""

from __future__ import annotations

import hashlib
import json

from pydantic import JsonValue


def canonical_json(value: JsonValue) -> str:
    """Sorted keys, no whitespace, no NaN, non-ASCII kept as is (hashed as UTF-8)."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
