"""Saga modules found in the working directory, as `python -m` and pytest find them.

The `fundsaga` console script's path starts with its own bin directory, so without this a
worker started from the folder holding a team's saga package could not import it.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path


def import_from_working_directory(modules: Sequence[str], directory: Path | None = None) -> bool:
    """Put `directory` (the current one) first on the import path when it holds the top-level
    package or module of one of `modules`; whether it is on the path now."""
    here = (directory or Path.cwd()).resolve()
    tops = {name.split(".")[0] for name in modules if name}
    if not any((here / top).is_dir() or (here / f"{top}.py").is_file() for top in tops):
        return False
    if not any(_same(entry, here) for entry in sys.path):
        sys.path.insert(0, str(here))
    return True


def _same(entry: str, directory: Path) -> bool:
    try:
        return Path(entry or ".").resolve() == directory
    except OSError:
        return False
