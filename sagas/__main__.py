"""`fundsaga` (and `python -m sagas`): the console script.

`--version` is answered before the CLI loads: it needs none of the commands' dependencies.
"""

from __future__ import annotations

import sys
from importlib.metadata import version
from typing import NoReturn


def main() -> NoReturn:
    if sys.argv[1:] == ["--version"]:
        print(f"fundsaga {version('fundsaga')}")
        raise SystemExit(0)
    from sagas.cli import main as run_fundsaga

    run_fundsaga()


if __name__ == "__main__":
    main()
