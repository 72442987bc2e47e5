"""Who a name stands for: two spellings of one name are one principal."""

from __future__ import annotations

import unicodedata

_INVISIBLE = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
"""Control, format (zero-width), and space characters: they change no name a person reads."""


def principal_key(name: str) -> str:
    """`name` as compared: NFKC-normalised, case-folded, without invisible characters.

    "Ana", "ana\\u200b" (zero-width space) and "\\uff41\\uff4e\\uff41" (full-width) are one
    principal.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return "".join(c for c in folded if unicodedata.category(c) not in _INVISIBLE)
