"""`fundsaga` (and `python -m sagas`): the console script.

`--version` and every `--help` are answered before the CLI loads: they need none of the
commands' dependencies. The help is rendered once from the commands into `cli_help.json`
(`python -m tooling.cli_help`; a test keeps it equal to what the commands render).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

HELP_OPTIONS = frozenset({"--help", "-h"})
HELP_FILE = Path(__file__).with_name("cli_help.json")


def shipped_help(args: list[str]) -> str | None:
    """The help `args` ask for (command words, then `--help` or `-h`), None when they ask for
    something else or name no command the shipped help knows."""
    if not args or args[-1] not in HELP_OPTIONS:
        return None
    words = args[:-1]
    if any(word.startswith("-") for word in words):
        return None
    try:
        helps: dict[str, str] = json.loads(HELP_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return helps.get(" ".join(words))


def main() -> NoReturn:
    args = sys.argv[1:]
    if args == ["--version"]:
        from importlib.metadata import version

        print(f"fundsaga {version('fundsaga')}")
        raise SystemExit(0)
    text = shipped_help(args)
    if text is not None:
        sys.stdout.write(text)
        raise SystemExit(0)
    from sagas.cli import main as run_fundsaga

    run_fundsaga()


if __name__ == "__main__":
    main()
