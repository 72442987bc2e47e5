"""Pending credits: money in the payee's balance that it cannot spend until the saga releases it.

A saga that may still compensate credits pending; its compensation reverses the credit
consuming the pending hold, so it never depends on what the payee spent; its last step voids
the hold, which makes the money available. The pending transfer itself is in _transfer.
"""

from __future__ import annotations

PENDING_SUFFIX = ":pending"


def pending_hold_key(key: str) -> str:
    """The key of the hold that keeps the credit written under `key` pending."""
    return f"{key}{PENDING_SUFFIX}"
