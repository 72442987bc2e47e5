"""One invariant's verdict after a chaos run."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    name: str
    ok: bool
    detail: str
    skipped: str = ""
    """Why the check could not run yet (it then passes, and the report says SKIP and why)."""
