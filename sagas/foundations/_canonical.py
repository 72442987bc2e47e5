"""Canonical JSON: what fundsaga hashes (request fingerprints, snapshots, audit records)."""

from __future__ import annotations

import hashlib
import json

from pydantic import JsonValue


def canonical_json(value: JsonValue, *, ascii_only: bool = True) -> str:
    """Sorted keys, no whitespace, no NaN; non-ASCII escaped unless `ascii_only` is False."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=ascii_only, allow_nan=False
    )


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
