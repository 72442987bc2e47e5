"""The help of every `fundsaga` command, rendered once and shipped: `fundsaga ... --help` prints
it without loading the commands (sagas/__main__.py).

``python -m tooling.cli_help`` writes sagas/cli_help.json; a test fails while it differs from
what the commands render now (tests/unit/test_cli_help.py).
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer.main
from typer.testing import CliRunner

from sagas.cli import app

HELP_FILE = Path(__file__).resolve().parents[1] / "sagas" / "cli_help.json"
WIDTH = 80
PLAIN = {
    "NO_COLOR": "1",
    "TERM": "dumb",
    "COLUMNS": str(WIDTH),
    "_TYPER_FORCE_DISABLE_TERMINAL": "1",
}


def command_paths() -> Iterator[list[str]]:
    """Every command and group of the tree, the root first, as the words that name it."""
    root = typer.main.get_command(app)

    # Typer carries its own copy of Click: a group is told by the commands it holds.
    def walk(command: Any, path: list[str]) -> Iterator[list[str]]:
        yield path
        for name, child in sorted(getattr(command, "commands", {}).items()):
            if not child.hidden:
                yield from walk(child, [*path, name])

    yield from walk(root, [])


def rendered() -> dict[str, str]:
    """Each command's `--help` as the CLI prints it to a pipe, keyed by its words."""
    runner = CliRunner()
    helps: dict[str, str] = {}
    saved = {name: os.environ.get(name) for name in PLAIN}
    os.environ.update(PLAIN)
    try:
        for path in command_paths():
            result = runner.invoke(
                app, [*path, "--help"], prog_name="fundsaga", terminal_width=WIDTH
            )
            if result.exit_code != 0:
                raise RuntimeError(f"fundsaga {' '.join(path)} --help exited {result.exit_code}")
            helps[" ".join(path)] = result.output
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    return helps


def main() -> int:
    HELP_FILE.write_text(json.dumps(rendered(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {HELP_FILE}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
