"""Public names that moved: still found at their old address for a deprecation period, each use
warning (DeprecationWarning) where the name lives now and the release that drops the old one."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Mapping


def moved_names(
    old_module: str, new_homes: Mapping[str, str], *, removed_in: str
) -> Callable[[str], object]:
    """A module `__getattr__` for `old_module`: a name of `new_homes` is imported from the module
    it names, with a warning pointing the caller at it; any other name is an AttributeError."""

    def lookup(name: str) -> object:
        home = new_homes.get(name)
        if home is None:
            raise AttributeError(f"module {old_module!r} has no attribute {name!r}")
        warnings.warn(
            f"{old_module}.{name} moved to {home}.{name}; import it from there "
            f"({old_module} is removed in {removed_in}, see CHANGELOG.md)",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(importlib.import_module(home), name)

    return lookup
