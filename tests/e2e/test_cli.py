"""The `fundsaga` command against the dev server and a real ledger, as a user types it."""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path

import pytest
from temporalio.testing import WorkflowEnvironment

from sagas.audit import AuditStore
from sagas.cli import run_cli
from sagas.client import FundsagaClient
from sagas.ledger import Ledger
from sagas.transfer import TRANSFER_SAGA
from tests.e2e.test_cli_commands import closed_port
from tests.fixtures_audit import TEST_SIGNER

pytestmark = pytest.mark.slow


@pytest.fixture
def cli_env(
    monkeypatch: pytest.MonkeyPatch,
    dev_env: WorkflowEnvironment,
    client: FundsagaClient,
    database_url: str,
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("TEMPORAL_ADDRESS", dev_env.client.service_client.config.target_host)
    monkeypatch.setenv("FUNDSAGA_TASK_QUEUE", client.task_queue)
    monkeypatch.setenv("FUNDSAGA_DATABASE_URL", database_url)
    monkeypatch.chdir(tmp_path)  # the CLI's relative .fundsaga/ is the test's own
    signing_key = tmp_path / "audit-signing.key"
    TEST_SIGNER.write(signing_key)
    monkeypatch.setenv("FUNDSAGA_AUDIT_SIGNING_KEY", str(signing_key))


async def test_an_opening_balance_without_temporal_writes_nothing(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    database_url: str,
) -> None:
    monkeypatch.setenv("FUNDSAGA_DATABASE_URL", database_url)
    monkeypatch.setenv("TEMPORAL_ADDRESS", f"127.0.0.1:{closed_port()}")

    code = await fundsaga(
        "accounts", "create", "erin", "--currency", "EUR", "--opening-balance", "5"
    )

    assert code == 1
    assert capsys.readouterr().err.startswith("error: TemporalUnreachableError")
    ledger = Ledger.from_url(database_url)
    try:
        assert ledger.find_account("erin") is None
        assert ledger.entries() == []
    finally:
        ledger.close_connections()


async def fundsaga(*argv: str) -> int:
    return await asyncio.to_thread(run_cli, list(argv))


@pytest.mark.usefixtures("cli_env")
async def test_step_mode_local_runs_the_transfer_steps_inside_the_workflow_task(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    client: FundsagaClient,
    funded: Ledger,
) -> None:
    monkeypatch.setenv("FUNDSAGA_STEP_MODE", "local")
    key = f"cli-local-{uuid.uuid4().hex[:10]}"
    argv = ["--from", "alice", "--to", "bob", "--amount", "2.50", "--currency", "EUR"]
    code = await fundsaga("transfer", "start", *argv, "--key", key, "--wait")

    assert code == 0
    assert f"transfer-{key}: COMPLETED" in capsys.readouterr().out
    handle = client.temporal.get_workflow_handle(f"transfer-{key}")
    assert (await handle.describe()).workflow_type == "TransferLocalStepsWorkflow"
    events = (await handle.fetch_history()).events
    assert not [e for e in events if e.HasField("activity_task_scheduled_event_attributes")]
    # One local-activity marker per step; a worker without a retry-specs file records no other.
    markers = [e for e in events if e.HasField("marker_recorded_event_attributes")]
    names = [e.marker_recorded_event_attributes.marker_name for e in markers]
    assert names == ["core_local_activity"] * len(TRANSFER_SAGA.steps)
    assert [s.step_name for s in funded.snapshots(f"transfer-{key}")] == [
        "reserve",
        "capture",
        "credit",
        "settle",
        "release",
    ]
    assert funded.account("bob").balance.amount_text() == "52.50"


@pytest.mark.usefixtures("cli_env")
async def test_accounts_round_trip_as_json_with_decimal_strings(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    audit_store: AuditStore,
) -> None:
    monkeypatch.setenv("FUNDSAGA_OPERATOR", "ana")
    opening = ("--opening-balance", "1.234", "--overdraft", "0.5", "--output", "json")
    assert await fundsaga("accounts", "create", "dave", "--currency", "BHD", *opening) == 0
    proposed = json.loads(capsys.readouterr().out)
    assert await fundsaga("accounts", "show", "dave", "--output", "json") == 0
    before = json.loads(capsys.readouterr().out)
    by_maker = await fundsaga("accounts", "approve-funding", proposed["funding_id"])
    own = capsys.readouterr().err
    monkeypatch.setenv("FUNDSAGA_OPERATOR", "bo")
    approve = ("accounts", "approve-funding", proposed["funding_id"], "--output", "json")
    assert await fundsaga(*approve) == 0
    funded = json.loads(capsys.readouterr().out)
    assert await fundsaga("accounts", "show", "dave", "--output", "json") == 0
    shown = json.loads(capsys.readouterr().out)

    assert (proposed["status"], proposed["proposed_by"]) == ("AWAITING_APPROVAL", "ana")
    assert before["balance"] == "0.000"
    assert by_maker == 1
    assert "SameOperatorError: ana proposed this funding" in own
    assert (funded["status"], funded["approved_by"]) == ("FUNDED", "bo")
    assert shown["balance"] == "1.234"
    assert shown["overdraft"] == "0.500"
    assert shown["available"] == "1.734"
    assert await fundsaga("accounts", "freeze", "dave", "--note", "fraud check") == 0
    assert await fundsaga("accounts", "close", "dave") == 2
    limited, frozen = audit_store.records(saga_id="dave")
    assert (limited.kind, frozen.kind) == ("account_limit_set", "account_frozen")
    assert (limited.payload["operator"], limited.payload["overdraft"]) == ("ana", "0.500")
    identity = frozen.payload["identity"]
    assert isinstance(identity, dict)
    assert identity["subject"] == "bo"
    assert frozen.payload["note"] == "fraud check"
    funding = [r.kind for r in audit_store.records(saga_id=proposed["funding_id"])]
    assert funding == ["funding_proposed", "funding_approved"]


@pytest.mark.usefixtures("cli_env")
async def test_transfer_start_wait_status_and_list(
    capsys: pytest.CaptureFixture[str], funded: Ledger
) -> None:
    key = f"cli-{uuid.uuid4().hex[:10]}"
    code = await fundsaga(
        "transfer",
        "start",
        "--from",
        "alice",
        "--to",
        "bob",
        "--amount",
        "12.34",
        "--currency",
        "EUR",
        "--key",
        key,
        "--wait",
    )
    started = capsys.readouterr().out
    assert code == 0
    assert f"transfer-{key}: COMPLETED" in started
    assert await fundsaga("transfer", "view", key, "--output", "json") == 0
    status = json.loads(capsys.readouterr().out)

    assert status["status"] == "COMPLETED"
    assert [s["step_name"] for s in status["snapshots"]] == [
        "reserve",
        "capture",
        "credit",
        "settle",
        "release",
    ]
    assert funded.account("bob").balance.amount_text() == "62.34"
    listed: list[dict[str, str]] = []
    for _ in range(50):
        assert await fundsaga("transfer", "list", "--status", "COMPLETED", "--output", "json") == 0
        listed = json.loads(capsys.readouterr().out)
        if any(row["saga_id"] == f"transfer-{key}" for row in listed):
            break
        await asyncio.sleep(0.2)
    [row] = [row for row in listed if row["saga_id"] == f"transfer-{key}"]
    assert row == {
        "saga_id": f"transfer-{key}",
        "saga_type": "transfer",
        "key": key,
        "status": "COMPLETED",
        "waiting_on": None,
        "waiting_since": None,
        "killed_as": None,
        "recovery_id": None,
        "amounts": {"amount": {"amount": "12.34", "currency": "EUR"}},
        "parties": {"source_account": "alice", "destination_account": "bob"},
        "reference": None,
    }
    assert {name: status[name] for name in row} == row  # the view says the same


@pytest.mark.usefixtures("cli_env")
@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["--amount", "1,00"], "amount"),
        (["--amount", "1e3"], "amount"),
        (["--amount", "10.001"], "amount"),
        (["--currency", "eur"], "currency"),
        (["--to", "alice"], "destination_account"),
        (["--to", "nobody"], "destination_account"),
    ],
)
async def test_bad_transfer_input_exits_2_naming_the_field(
    capsys: pytest.CaptureFixture[str], funded: Ledger, args: list[str], field: str
) -> None:
    base = {"--from": "alice", "--to": "bob", "--amount": "1.00", "--currency": "EUR"}
    base.update(dict(zip(args[::2], args[1::2], strict=True)))
    argv = [part for pair in base.items() for part in pair]
    before = [a.balance for a in funded.accounts()]

    code = await fundsaga("transfer", "start", *argv, "--key", f"bad-{uuid.uuid4().hex[:8]}")

    assert code == 2
    assert f"error: {field}:" in capsys.readouterr().err
    assert [a.balance for a in funded.accounts()] == before


@pytest.mark.usefixtures("cli_env")
async def test_a_bad_setting_is_refused_naming_the_variable(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FUNDSAGA_STEP_MODE", "fast")

    assert await fundsaga("accounts", "list") == 2
    assert "FUNDSAGA_STEP_MODE" in capsys.readouterr().err
