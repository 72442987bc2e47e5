"""Turning pydantic validation failures into InvalidRequestError naming the field."""

from __future__ import annotations

import re
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


ACCOUNT_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:-]{0,63}")
"""A customer account id; ids starting with '@' are the system's own."""


def check_account_id(value: str, field: str) -> str:
    """Refuse anything but a customer account id, naming `field`: a request can never name a
    system account (`@funding:EUR`, a saga's declared accounts) as one to take money from."""
    if not isinstance(value, str) or ACCOUNT_ID.fullmatch(value) is None:
        raise InvalidRequestError(field, "must be 1-64 characters of letters, digits and . _ : -")
    return value
