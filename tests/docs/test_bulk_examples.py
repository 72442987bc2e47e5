"""Every `fundsaga attention bulk` example in operations.md passes the CLI's checks of its options
and filters: run with Temporal not there, each gets as far as connecting, never a usage error."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from sagas.cli import run_cli
from tests.docs.test_docs_match_code import read_doc, shell_commands
from tests.e2e.test_cli_commands import closed_port

PROGRAM = "fundsaga attention bulk"


def documented() -> list[list[str]]:
    text = read_doc("operations.md")
    in_blocks = list(shell_commands(text, PROGRAM))
    examples = re.findall(rf"\| `({PROGRAM} [^`]*)` \|$", text, re.MULTILINE)
    in_table = [shlex.split(example) for example in examples]
    return in_blocks + in_table


def test_the_docs_show_each_bulk_action_with_a_dry_run() -> None:
    commands = documented()

    assert {words[3] for words in commands} == {"retry", "propose", "approve"}
    assert any("--dry-run" in words and words[3] == "approve" for words in commands)


@pytest.mark.parametrize("words", documented(), ids=" ".join)
def test_a_documented_bulk_command_is_refused_only_for_want_of_temporal(
    words: list[str],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    monkeypatch.chdir(tmp_path)
    address = f"127.0.0.1:{closed_port()}"
    monkeypatch.setenv("TEMPORAL_ADDRESS", address)

    code = run_cli(words[1:])

    assert code == 1
    unreachable = f"error: TemporalUnreachableError: Temporal at {address} is not reachable"
    assert capsys.readouterr().err.startswith(unreachable)
