"""The CLI's bugs of issue 13, each pinned where it was seen (the closed pipe is in
`test_cli_process`)."""

from __future__ import annotations

import asyncio
import json
import socket

from sagas.audit import Checkpoint
from tests.fixtures_cli import CLI_OPERATOR, Stack, fundsaga, unique


async def test_accounts_list_as_json_with_one_account_is_a_list(
    cli_stack: Stack, sqlite_url: str
) -> None:
    created = await fundsaga(
        cli_stack,
        "accounts",
        "create",
        "only",
        "--currency",
        "EUR",
        FUNDSAGA_DATABASE_URL=sqlite_url,
    )
    listed = await fundsaga(
        cli_stack, "accounts", "list", "--output", "json", FUNDSAGA_DATABASE_URL=sqlite_url
    )

    assert (created.exit_code, listed.exit_code) == (0, 0)
    assert [row["account_id"] for row in json.loads(listed.stdout)] == ["only"]


async def test_transfer_cancel_of_an_unknown_key_is_one_line(cli_stack: Stack) -> None:
    key = unique("nobody")

    result = await fundsaga(cli_stack, "transfer", "cancel", key)

    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == f"error: SagaNotFoundError: no saga transfer-{key}\n"


async def test_audit_checkpoint_to_a_file_says_what_it_wrote(cli_stack: Stack) -> None:
    target = cli_stack.home / unique("head.json")

    said = await fundsaga(cli_stack, "audit", "checkpoint", "--file", str(target), "-o", "json")
    verified = await fundsaga(cli_stack, "audit", "verify", "--checkpoint", str(target))

    written = Checkpoint.from_json(target.read_text())
    assert said.exit_code == 0
    assert json.loads(said.stdout) == {
        "file": str(target),
        "sequence": written.sequence,
        "hash": written.hash,
        "taken_at": json.loads(target.read_text())["taken_at"],
    }
    assert verified.exit_code == 0, verified.stdout


async def test_attention_resolves_a_parked_saga_that_is_not_a_transfer(cli_stack: Stack) -> None:
    key = await cli_stack.park_escrow()
    listed = await until_listed(cli_stack, f"escrow-{key}")
    proposal = await cli_stack.propose(key)

    resolved = await fundsaga(
        cli_stack,
        "attention",
        "approve",
        key,
        "--type",
        "escrow",
        "--proposal",
        proposal,
        "--note",
        "hold voided by hand",
        "--output",
        "json",
    )

    assert listed["saga_type"] == "escrow"
    assert listed["parked_on"] == "hold"
    assert resolved.exit_code == 0, resolved.stderr
    assert json.loads(resolved.stdout) == {
        "saga_id": f"escrow-{key}",
        "decision": "approve",
        "operator": CLI_OPERATOR,
        "status": "RESOLVED",
    }
    assert (await cli_stack.client.saga("escrow", key).outcome()).status == "RESOLVED"


async def until_listed(stack: Stack, saga_id: str) -> dict[str, str]:
    """The saga's row in `attention list` once Temporal's visibility shows it parked."""
    for _ in range(100):
        result = await fundsaga(stack, "attention", "list", "--output", "json")
        rows: list[dict[str, str]] = json.loads(result.stdout)
        for row in rows:
            if row["saga_id"] == saga_id:
                return row
        await asyncio.sleep(0.1)
    raise AssertionError(f"{saga_id} never listed as parked")


async def test_freeze_unfreeze_and_close_take_the_output_option(cli_stack: Stack) -> None:
    account = cli_stack.account()
    statuses = []
    for action in ("freeze", "unfreeze", "close"):
        result = await fundsaga(cli_stack, "accounts", action, account, "--output", "json")
        assert result.exit_code == 0, result.stderr
        statuses.append(json.loads(result.stdout)["status"])

    assert statuses == ["frozen", "active", "closed"]


async def test_audit_compensations_takes_output_like_every_command_and_a_file(
    cli_stack: Stack,
) -> None:
    page = cli_stack.home / unique("report.html")

    as_json = await fundsaga(cli_stack, "audit", "compensations", "-o", "json")
    as_csv = await fundsaga(cli_stack, "audit", "compensations", "--output", "csv")
    to_file = await fundsaga(
        cli_stack, "audit", "compensations", "--output", "html", "--file", str(page)
    )
    old_file_option = await fundsaga(cli_stack, "audit", "compensations", "-o", str(page))

    assert (as_json.exit_code, json.loads(as_json.stdout)["findings"]) == (0, [])
    assert as_csv.stdout.startswith("saga_id,status,recorded_at,amount,")
    assert to_file.exit_code == 0
    assert to_file.stdout.startswith(f"compensation audit (html) written to {page}: ")
    assert "Compensation audit: no findings" in page.read_text()
    assert old_file_option.exit_code == 2
    assert old_file_option.stderr.startswith("error: Invalid value for '--output' / '-o'")


async def test_a_server_that_never_answers_is_one_line_after_the_connect_timeout(
    cli_stack: Stack,
) -> None:
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"127.0.0.1:{silent.getsockname()[1]}"
        result = await fundsaga(
            cli_stack,
            "sagas",
            "list",
            TEMPORAL_ADDRESS=address,
            FUNDSAGA_TEMPORAL_CONNECT_TIMEOUT="0.5",
        )

    assert (result.exit_code, result.stdout) == (1, "")
    assert result.stderr == (
        f"error: TemporalUnreachableError: Temporal at {address} did not answer within 0.5 s\n"
    )


def transfer_args(key: str, source: str, destination: str, amount: str = "1.00") -> list[str]:
    return [
        "transfer",
        "start",
        "--key",
        key,
        "--from",
        source,
        "--to",
        destination,
        "--amount",
        amount,
        "--currency",
        "EUR",
        "--output",
        "json",
    ]


async def test_a_start_whose_key_is_closed_says_so_and_exits_1(cli_stack: Stack) -> None:
    completed = await fundsaga(cli_stack, *transfer_args(cli_stack.completed, "alice", "bob"))
    compensated = await fundsaga(
        cli_stack,
        "sagas",
        "start",
        "--type",
        "transfer",
        "--request",
        json.dumps(
            {
                "idempotency_key": cli_stack.compensated,
                "source_account": "alice",
                "destination_account": "frozen",
                "amount": "1.00",
                "currency": "EUR",
            }
        ),
        "--output",
        "json",
    )
    other = await fundsaga(
        cli_stack, *transfer_args(cli_stack.completed, "alice", "bob", amount="2.00")
    )

    assert completed.exit_code == 1
    assert json.loads(completed.stdout) == {
        "saga_id": f"transfer-{cli_stack.completed}",
        "idempotency_key": cli_stack.completed,
        "started": False,
        "status": "COMPLETED",
    }
    assert "not started" in completed.stderr
    assert "ended COMPLETED" in completed.stderr
    assert compensated.exit_code == 1
    assert json.loads(compensated.stdout)["status"] == "COMPENSATED"
    assert other.exit_code == 1
    assert "different request (that saga is COMPLETED)" in other.stderr


async def test_the_same_start_of_a_running_saga_is_idempotent(cli_stack: Stack) -> None:
    key, idle = unique("run"), unique("no-worker")  # no worker serves `idle`: it stays RUNNING
    args = transfer_args(key, "alice", "bob")

    first = await fundsaga(cli_stack, *args, FUNDSAGA_TASK_QUEUE=idle)
    again = await fundsaga(cli_stack, *args[:-2], FUNDSAGA_TASK_QUEUE=idle)

    assert first.exit_code == 0, first.stderr
    assert json.loads(first.stdout)["started"] is True
    assert again.exit_code == 0, again.stderr
    assert again.stdout.startswith(f"already running (RUNNING) transfer-{key}")


async def test_start_wait_returns_when_the_saga_parks(cli_stack: Stack) -> None:
    key = unique("esc")
    request = {"payer": "stuck", "payee": "bob", "currency": "EUR", "amount": "1.00"}
    argv = ["sagas", "start", "--type", "escrow", "--request"]
    document = json.dumps({"idempotency_key": key, **request})

    waited = await fundsaga(cli_stack, *argv, document, "--wait", "--output", "json")
    again = await fundsaga(cli_stack, *argv, document)

    assert waited.exit_code == 1
    assert json.loads(waited.stdout)["status"] == "NEEDS_ATTENTION"
    assert "parked in NEEDS_ATTENTION" in waited.stderr
    assert "fundsaga attention" in waited.stderr
    assert again.exit_code == 1
    assert "not started" in again.stderr
    assert "parked" in again.stderr
