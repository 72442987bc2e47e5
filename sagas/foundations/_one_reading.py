"""JSON from outside read one way only: an object that names a key twice is refused.

Parsers disagree on such an object (most keep the last value, some the first), so a reviewer
and the engine could read two different requests from the same bytes.
"""

from __future__ import annotations

import json
from typing import Any

from sagas.foundations._errors import InvalidRequestError


def refuse_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An `object_pairs_hook` for `json.loads`: the object, or InvalidRequestError naming the
    key it holds twice."""
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise InvalidRequestError(key, "appears twice in one JSON object: refused")
        found[key] = value
    return found


def loads_one_reading(text: str | bytes) -> Any:
    """`json.loads`, refusing duplicate keys (InvalidRequestError naming the key); a text that
    is not JSON raises json.JSONDecodeError as `json.loads` does."""
    return json.loads(text, object_pairs_hook=refuse_duplicate_keys)
