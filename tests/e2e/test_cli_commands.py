"""Every command but `dev` and `worker`, as a table of exit codes and outputs: against a running
stack and against a Temporal that is not there, with `--output table` and `--output json`.

Whatever happens, stderr holds at most one line, an `error: ...`, and never a traceback; JSON on
stdout parses, and a listing is a list.
"""

from __future__ import annotations

import json
import shlex
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import Result

from sagas.testing import freeze_by_operator
from tests.fixtures_cli import Stack, fundsaga, unique

pytestmark = pytest.mark.long

TABLE, JSON = "table", "json"
SAGA_GROUPS = {"sagas", "transfer", "attention"}
LISTING, RECORD, NOTHING = list, dict, None


@dataclass(frozen=True)
class Case:
    command: str
    """Shell words; `{name}` is filled in by `fill`."""
    running: int
    """The exit code against the running stack."""
    unreachable: int
    """The exit code with Temporal not there."""
    shape: type | None = RECORD
    """What `--output json` prints on stdout: a list, an object, or nothing."""

    def __str__(self) -> str:
        return self.command


CASES = [
    Case("sagas start --type escrow --request {escrow_request}", 0, 1),
    Case("sagas start --type escrow --request {escrow_request} --wait", 0, 1),
    Case("sagas start --type escrow --request {escrow_to_frozen} --wait", 2, 1, NOTHING),
    Case("sagas start --type escrow --request {escrow_without_payer}", 2, 2, NOTHING),
    Case("sagas start --type escrow --request not-json", 2, 2, NOTHING),
    Case("sagas start --type escrow --request @{unknown}", 2, 2, NOTHING),
    Case("sagas start --type wire-out --request {escrow_request}", 2, 2, NOTHING),
    Case("sagas list", 0, 1, LISTING),
    Case("sagas list --type escrow --status NEEDS_ATTENTION", 0, 1, LISTING),
    Case("sagas list --type wire-out", 2, 1, NOTHING),
    Case("sagas view {parked} --type escrow", 0, 1),
    Case("sagas view {unknown} --type escrow", 1, 1, NOTHING),
    Case("sagas wait {completed} --type transfer", 0, 1),
    Case("sagas wait {compensated} --type transfer", 1, 1),
    Case("sagas cancel {running} --type transfer", 0, 1),
    Case("sagas cancel {parked} --type escrow", 1, 1, NOTHING),
    Case("sagas cancel {completed} --type transfer", 1, 1, NOTHING),
    Case("sagas cancel {unknown} --type transfer", 1, 1, NOTHING),
    Case("transfer start --from alice --to bob --amount 1.00 --currency EUR --key {unknown}", 0, 1),
    Case("transfer start --from alice --to bob --amount 1.00 --currency EUR --wait", 0, 1),
    Case(
        "transfer start --from alice --to frozen --amount 1.00 --currency EUR --wait", 2, 1, NOTHING
    ),
    Case("transfer start --from alice --to bob --amount 1,00 --currency EUR", 2, 2, NOTHING),
    Case("transfer start --from alice --to nobody --amount 1.00 --currency EUR", 2, 1, NOTHING),
    Case("transfer view {completed}", 0, 1),
    Case("transfer view {unknown}", 1, 1, NOTHING),
    Case("transfer cancel {running}", 0, 1),
    Case("transfer cancel {unknown}", 1, 1, NOTHING),
    Case("transfer list", 0, 1, LISTING),
    Case("transfer list --status completed", 0, 1, LISTING),
    Case("attention list", 0, 1, LISTING),
    Case("attention list --type escrow", 0, 1, LISTING),
    Case("attention retry {parked} --type escrow --note fixed", 0, 1),
    Case("attention propose {new_parked} --type escrow --note by-hand", 0, 1),
    Case("attention approve {proposed} --type escrow --proposal {proposal} --note ok", 0, 1),
    Case("attention approve {proposed} --type escrow --proposal p99", 1, 1, NOTHING),
    Case("attention retry {completed} --type transfer", 1, 1, NOTHING),
    Case("attention propose {parked} --type escrow", 2, 2, NOTHING),
    Case("attention approve {parked} --type escrow", 2, 2, NOTHING),
    Case("attention retry {parked} --type escrow --operator ana", 2, 2, NOTHING),
    Case("attention bulk retry --type escrow --dry-run", 0, 1, LISTING),
    Case("attention bulk propose --type escrow --note by-hand --dry-run", 0, 1, LISTING),
    Case("attention bulk approve --type transfer --step settle --note ok", 0, 1, LISTING),
    Case("attention bulk retry", 2, 2, NOTHING),
    Case("attention bulk retry --step nope", 2, 2, NOTHING),
    Case("attention bulk retry --all --parked-since 2026-11-01", 2, 2, NOTHING),
    Case("accounts create {unknown} --currency EUR --opening-balance 5.00", 0, 1),
    Case("accounts create {unknown} --currency EUR --opening-balance 5.001", 2, 2, NOTHING),
    Case("accounts list", 0, 0, LISTING),
    Case("accounts list --all", 0, 0, LISTING),
    Case("accounts show alice", 0, 0),
    Case("accounts show {unknown}", 1, 1, NOTHING),
    Case("accounts freeze {account}", 0, 1),
    Case("accounts unfreeze {frozen_account}", 0, 1),
    Case("accounts close {account}", 0, 1),
    Case("accounts close alice", 2, 1, NOTHING),
    Case("ledger verify --offline-ok", 0, 0),
    Case("db upgrade", 0, 0, LISTING),
    Case("audit keygen --out {new_file}", 0, 0),
    Case("audit keygen --out {key_file}", 2, 2, NOTHING),
    Case("audit anchor", 0, 0),
    Case("audit verify", 0, 0),
    Case("audit verify --checkpoint {key_file}", 2, 2, NOTHING),
    Case("audit checkpoint", 0, 0),
    Case("audit checkpoint --file {new_file}", 0, 0),
    Case("audit compensations", 0, 1),
    Case("audit compensations --status RESOLVED --file {new_file}", 0, 1),
    Case("audit compensations --since 2026-11-01", 2, 2, NOTHING),
    Case("audit verify-report {key_file}", 1, 1),
    Case("audit verify-report {unknown}", 2, 2, NOTHING),
    Case("retry-plan --first 10s --multiplier 2 --max-retries 10", 0, 0),
    Case("retry-plan --preset long", 0, 0),
    Case("retry-plan --saga transfer --step credit", 0, 0),
    Case("retry-plan --first 10s --multiplier 9 --max-retries 10", 2, 2, NOTHING),
    Case("transfer start --frm alice", 2, 2, NOTHING),
    Case("sagas view {unknown}", 2, 2, NOTHING),
]


async def fill(command: str, stack: Stack, *, live: bool) -> list[str]:
    """The command's words with every `{name}` made: keys, accounts, files, sagas."""
    words = shlex.split(command)
    for index, word in enumerate(words):
        if word.startswith("{"):
            words[index] = await made(word.strip("{}"), stack, live=live)
    return words


async def made(name: str, stack: Stack, *, live: bool) -> str:
    if name in ("completed", "compensated", "parked"):
        return str(getattr(stack, name))
    if name == "account":
        return stack.account()
    if name == "frozen_account":  # with Temporal not there, unfreeze fails before it looks
        account_id = stack.account()
        if live:
            await freeze_by_operator(stack.client.temporal, stack.client.task_queue, account_id)
        return account_id
    if name == "new_file":
        return str(stack.home / unique("file"))
    if name == "key_file":
        return str(stack.home / "audit-signing.key")
    if name.startswith("escrow_"):
        return f"@{escrow_request_file(stack, name)}"
    if name == "running" and live:
        return await stack.start_transfer("slow", "bob")
    if name == "new_parked" and live:
        return await stack.park_escrow()
    if name == "proposed" and live:
        key = await stack.park_escrow()
        await stack.propose(key)
        return key
    if name == "proposal" and live:  # the proposal of the `{proposed}` before it
        return list(stack.proposals.values())[-1]
    return unique(name)


def escrow_request_file(stack: Stack, name: str) -> Path:
    """A file holding a new escrow request: alice to bob, to a frozen payee, or with no payer."""
    request = {"idempotency_key": unique("esc"), "payer": "alice", "payee": "bob"}
    request |= {"currency": "EUR", "amount": "1.00"}
    if name == "escrow_to_frozen":
        request["payee"] = "frozen"
    if name == "escrow_without_payer":
        del request["payer"]
    path = stack.home / f"{unique(name)}.json"
    path.write_text(json.dumps(request), encoding="utf-8")
    return path


def check_output(result: Result, output: str, shape: type | None) -> None:
    assert "Traceback" not in result.stdout + result.stderr
    errors = result.stderr.splitlines()
    assert len(errors) <= 1, result.stderr
    assert all(line.startswith("error: ") for line in errors), result.stderr
    if result.exit_code == 0:
        assert errors == []
        assert result.stdout
    if shape is NOTHING:
        assert result.stdout == ""
    elif output == JSON and result.stdout:
        assert isinstance(json.loads(result.stdout), shape), result.stdout


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def cases() -> list[Any]:
    return [
        pytest.param(case, output, id=f"{case}-{output}")
        for case in CASES
        for output in (TABLE, JSON)
    ]


@pytest.mark.parametrize(("case", "output"), cases())
async def test_against_a_running_stack(cli_stack: Stack, case: Case, output: str) -> None:
    argv = await fill(case.command, cli_stack, live=True)

    result = await fundsaga(cli_stack, *argv, "--output", output)

    assert result.exit_code == case.running, result.stdout + result.stderr
    check_output(result, output, case.shape)


@pytest.mark.parametrize(("case", "output"), cases())
async def test_with_temporal_not_there(cli_stack: Stack, case: Case, output: str) -> None:
    address = f"127.0.0.1:{closed_port()}"
    argv = await fill(case.command, cli_stack, live=False)

    result = await fundsaga(cli_stack, *argv, "--output", output, TEMPORAL_ADDRESS=address)

    assert result.exit_code == case.unreachable, result.stdout + result.stderr
    check_output(result, output, case.shape)
    if argv[0] in SAGA_GROUPS and case.unreachable == 1:
        unreachable = f"error: TemporalUnreachableError: Temporal at {address} is not reachable"
        assert result.stderr.startswith(unreachable)
