"""Confusable skeletons (Unicode UTS #39, section 4): strings a person could take for one
another, such as `ana` in Latin and `\\u0430na` with a Cyrillic a, or `rn` and `m`, have one
skeleton.

The mapping is Unicode's own (`_confusables_data`, generated from confusables.txt by
`python -m tooling.confusables`); normalisation is Python's `unicodedata`, whose Unicode
version may be older than the data's: a code point it does not know yet is mapped, not
decomposed.
"""

from __future__ import annotations

import unicodedata
from functools import cache

from sagas.foundations._confusables_data import PROTOTYPES, UNICODE_VERSION

CONFUSABLES_VERSION = UNICODE_VERSION
"""The version of Unicode's confusables data the skeletons are made with."""


@cache
def _prototypes() -> dict[int, str]:
    """Built on first use (about 10 ms), and kept: the data is code, so no file is read."""
    table: dict[int, str] = {}
    for line in PROTOTYPES.splitlines():
        source, *target = line.split()
        table[int(source, 16)] = "".join(chr(int(code, 16)) for code in target)
    return table


def confusable_skeleton(text: str) -> str:
    """UTS #39's skeleton(X): NFD, each code point replaced by its prototype, NFD again."""
    mapped = unicodedata.normalize("NFD", text).translate(_prototypes())
    return unicodedata.normalize("NFD", mapped)


def confusable(first: str, second: str) -> bool:
    """Whether `first` and `second` are confusable: they have one skeleton."""
    return confusable_skeleton(first) == confusable_skeleton(second)
