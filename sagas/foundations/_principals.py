"""Who a name stands for: two spellings of one name are one principal, and two names a person
could take for one another are never two principals."""

from __future__ import annotations

import unicodedata

from sagas.foundations._skeleton import confusable

_INVISIBLE = frozenset({"Cc", "Cf", "Zs", "Zl", "Zp"})
"""Control, format (zero-width), and space characters: they change no name a person reads."""


def principal_key(name: str) -> str:
    """`name` as compared: NFKC-normalised, case-folded, without invisible characters.

    "Ana", "ana\\u200b" (zero-width space) and "\\uff41\\uff4e\\uff41" (full-width) are one
    principal.
    """
    folded = unicodedata.normalize("NFKC", name).casefold()
    return _visible(folded)


def names_look_alike(first: str, second: str) -> bool:
    """Whether a person reading `first` could take it for `second`: their visible characters
    are confusable (UTS #39 skeletons), as written or case-folded.

    "ana" and "\\u0430na" (a Cyrillic a), "\\u03b1na" (a Greek alpha), "rn" and "m", "Ana" and "ana"
    look alike; "ana" and "bob" do not.
    """
    return confusable(_visible(first), _visible(second)) or confusable(
        principal_key(first), principal_key(second)
    )


def _visible(name: str) -> str:
    return "".join(c for c in name if unicodedata.category(c) not in _INVISIBLE)
