"""Turning pydantic validation failures into InvalidRequestError naming the field."""

from __future__ import annotations

import unicodedata

from pydantic import ValidationError

from sagas.foundations._errors import InvalidRequestError


def invalid_request_from(err: BaseException) -> InvalidRequestError:
    """The first problem of a failed validation, as an InvalidRequestError naming its field."""
    if isinstance(err, InvalidRequestError):
        return err
    validation = err if isinstance(err, ValidationError) else err.__cause__
    if not isinstance(validation, ValidationError):
        return InvalidRequestError("request", f"cannot be decoded: {err}")
    first = validation.errors()[0]
    original = (first.get("ctx") or {}).get("error")
    if isinstance(original, InvalidRequestError):
        return original
    field = ".".join(str(part) for part in first["loc"]) or "request"
    return InvalidRequestError(field, first["msg"])


def check_text(value: str, field: str, *, max_length: int) -> str:
    """Refuse control characters, NUL, bidi overrides and over-long text."""
    if len(value) > max_length:
        raise InvalidRequestError(field, f"is longer than {max_length} characters")
    for char in value:
        if unicodedata.category(char) in {"Cc", "Cf", "Cs", "Co", "Cn"}:
            raise InvalidRequestError(
                field, f"contains the control or format character U+{ord(char):04X}"
            )
    return value
