"""Every `--help` is answered from the shipped help without loading the commands, and the
shipped help is what the commands render."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from sagas.__main__ import HELP_FILE, shipped_help
from tooling.cli_help import rendered

SHOW_LOADED = """
import runpy, sys
sys.argv = ["fundsaga", *sys.argv[1:]]
try:
    runpy.run_module("sagas", run_name="__main__")
except SystemExit as stop:
    code = stop.code
print("LOADED:", sorted(m for m in sys.modules if m.startswith(("sagas.cli", "typer"))), code)
"""


def test_the_shipped_help_is_what_every_command_renders() -> None:
    shipped = json.loads(HELP_FILE.read_text(encoding="utf-8"))

    stale = sorted(
        words or "(root)" for words, text in rendered().items() if shipped.get(words) != text
    )
    assert stale == [], f"run `python -m tooling.cli_help`: the help of {stale} changed"


@pytest.mark.parametrize("argv", [["--help"], ["sagas", "list", "--help"], ["reconcile", "-h"]])
def test_help_is_printed_without_loading_the_commands(argv: list[str]) -> None:
    done = subprocess.run(
        [sys.executable, "-c", SHOW_LOADED, *argv], capture_output=True, text=True, check=True
    )

    printed, _, loaded = done.stdout.rpartition("LOADED: ")
    assert printed == shipped_help(argv)
    assert loaded.strip() == "[] 0"


@pytest.mark.parametrize(
    "argv",
    [[], ["--version"], ["sagas", "--output", "json", "--help"], ["no-such-command", "--help"]],
)
def test_anything_else_goes_to_the_commands(argv: list[str]) -> None:
    assert shipped_help(argv) is None
