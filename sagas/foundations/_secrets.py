"""Secrets the project checks (tokens, webhook secrets): long enough to be guessed by no one."""

from __future__ import annotations

from sagas.foundations._errors import InvalidRequestError

MIN_SECRET_LENGTH = 32
"""Characters; a secret made as the docs say (`secrets.token_urlsafe(32)`) has 43."""
PLACEHOLDERS = frozenset({"change-me", "changeme", "secret", "password", "token"})
"""Values from examples and templates, refused whatever their length."""


def checked_secret(value: str, field: str) -> str:
    """`value`, or InvalidRequestError naming `field` when it is a placeholder or too short to
    be 32 random bytes."""
    if value.strip().lower() in PLACEHOLDERS or "change-me" in value.lower():
        raise InvalidRequestError(
            field, "is a placeholder: make one with secrets.token_urlsafe(32)"
        )
    if len(value) < MIN_SECRET_LENGTH or len(set(value)) < 8:
        raise InvalidRequestError(
            field,
            f"is too weak: at least {MIN_SECRET_LENGTH} random characters "
            "(secrets.token_urlsafe(32) makes one)",
        )
    return value
