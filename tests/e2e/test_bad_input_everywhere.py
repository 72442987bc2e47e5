"""Bad input at every entry point: the Python client, the `fundsaga` CLI, and JSON sent by a
non-Python client (`temporal workflow start` with a hand-written --input).

The contract: input that can be judged on its own (format, currency, the same account twice,
a bad reference, an oversized payload) is refused before any effect with an error naming the
field; the client and the CLI also refuse up front, naming the field, an account that is
unknown, frozen, closed or in another currency. A JSON launch cannot be checked before it
starts, so its workflow fails at once, before any activity, with an InvalidRequestError naming
the field; the accounts of a JSON launch, which only the ledger knows, are refused by the first
step that touches them (a business error naming the field): the saga compensates, moving no
money.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment

from sagas import (
    FailureReason,
    InvalidRequestError,
    SagaRejectedError,
    SagaStatus,
    parse_money,
)
from sagas.audit import AuditStore
from sagas.cli import run_cli
from sagas.client import FundsagaClient, saga_id
from sagas.foundations import invalid_request_from
from sagas.ledger import HoldStatus, Ledger
from sagas.transfer import TransferRequest
from tests.e2e.conftest import TemporalCli

pytestmark = pytest.mark.long

OVERSIZED = 3 * 1024 * 1024
"""A reference of 3 MB: over Temporal's 2 MB payload limit and any sane request."""

VALID: dict[str, Any] = {
    "source_account": "alice",
    "destination_account": "bob",
    "amount": "10.00",
    "currency": "EUR",
}
USD = {"source_account": "usd-a", "destination_account": "usd-b", "currency": "USD"}
JPY = {"source_account": "jpy-a", "destination_account": "jpy-b", "currency": "JPY"}

REFUSED = [
    pytest.param({"amount": "0"}, "amount", id="amount-zero"),
    pytest.param({"amount": "-5"}, "amount", id="amount-negative"),
    pytest.param({"amount": "NaN"}, "amount", id="amount-nan"),
    pytest.param({"amount": "Infinity"}, "amount", id="amount-infinity"),
    pytest.param({"amount": "1e3"}, "amount", id="amount-exponent"),
    pytest.param({"amount": "+5"}, "amount", id="amount-plus-sign"),
    pytest.param({"amount": "1,00"}, "amount", id="amount-comma"),
    pytest.param({**USD, "amount": "10.001"}, "amount", id="usd-three-decimals"),
    pytest.param({**JPY, "amount": "1.5"}, "amount", id="jpy-decimals"),
    pytest.param({"amount": "92233720368547758.08"}, "amount", id="beyond-64-bit"),
    pytest.param({"currency": "XYZ"}, "currency", id="currency-unknown"),
    pytest.param({"currency": "eur"}, "currency", id="currency-lowercase"),
    pytest.param({"destination_account": "alice"}, "destination_account", id="same-account"),
    pytest.param({"reference": "ring\x07bell"}, "reference", id="reference-control"),
    pytest.param({"reference": "nul\x00byte"}, "reference", id="reference-nul"),
    pytest.param({"reference": "abc\u202efed"}, "reference", id="reference-rtl-override"),
    pytest.param({"reference": "x" * 10_000}, "reference", id="reference-10000-chars"),
]
"""Bad input any entry point can send; the CLI's flags carry each value as text."""

JSON_NUMBERS = [
    pytest.param("12.5", id="amount-json-float"),
    pytest.param("1e3", id="amount-json-exponent"),
    pytest.param("100", id="amount-json-integer"),
    pytest.param("92233720368547758080", id="amount-json-beyond-64-bit"),
]
"""Amounts written as JSON numbers, which only a JSON or Python caller can send."""

UNKNOWN = [
    pytest.param({"source_account": "ghost"}, "source_account", id="unknown-source"),
    pytest.param(
        {"destination_account": "nobody"}, "destination_account", id="unknown-destination"
    ),
]
BLOCKED = [
    pytest.param({"source_account": "frozen"}, "AccountFrozenError", id="frozen-source"),
    pytest.param({"destination_account": "frozen"}, "AccountFrozenError", id="frozen-destination"),
    pytest.param({"source_account": "closed"}, "AccountClosedError", id="closed-source"),
    pytest.param({"destination_account": "closed"}, "AccountClosedError", id="closed-destination"),
]
"""Accounts the ledger refuses to move money on: refused up front, or by a JSON launch's step."""

AT_ONCE_S = 5
"""How long a JSON launch that the workflow refuses may take to fail."""

# This module varies the entry point; the ledger's own behaviour on PostgreSQL is covered by
# test_transfers.py and the fault matrix, so one database is enough here.
SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


class Entry(StrEnum):
    PYTHON = "python-client"  # FundsagaClient.start with a dict
    CLI = "fundsaga-cli"  # fundsaga transfer start --wait
    JSON = "temporal-cli-json"  # temporal workflow start --input '{...}'


def transfer(**changes: Any) -> dict[str, Any]:
    return {"idempotency_key": f"bad-{uuid.uuid4().hex[:12]}", **VALID, **changes}


def hand_written(request: dict[str, Any], **verbatim: str) -> str:
    """The request as JSON text, with the `verbatim` fields written as given (amount=1e3)."""
    fields = [
        f"{json.dumps(name)}: {verbatim[name] if name in verbatim else json.dumps(value)}"
        for name, value in {**request, **verbatim}.items()
    ]
    return "{" + ", ".join(fields) + "}"


@dataclass(frozen=True)
class LedgerState:
    """Every non-zero balance and held amount, and how many entries and holds exist."""

    amounts: dict[str, tuple[int, int]]
    entries: int
    holds: int

    @classmethod
    def of(cls, ledger: Ledger) -> LedgerState:
        return cls(
            amounts={
                a.account_id: (a.balance.minor, a.held.minor)
                for a in ledger.accounts(include_system=True)
                if a.balance.minor or a.held.minor
            },
            entries=len(ledger.entries()),
            holds=len(ledger.holds()),
        )


@pytest.fixture
def accounts(funded: Ledger) -> Ledger:
    """The e2e accounts plus pairs in USD, JPY and BHD, and a frozen and a closed account."""
    for code, opening in (("USD", "100.00"), ("JPY", "1000"), ("BHD", "10.000")):
        prefix = code.lower()
        funded.open_account(f"{prefix}-a", code, opening_balance=parse_money(opening, code))
        funded.open_account(f"{prefix}-b", code)
    funded.open_account("frozen", "EUR", opening_balance=parse_money("100.00", "EUR"))
    funded.freeze("frozen")
    funded.open_account("closed", "EUR")
    funded.close_account("closed")
    return funded


@dataclass(frozen=True)
class CliResult:
    code: int
    out: str
    err: str


FundsagaCli = Callable[..., Awaitable[CliResult]]


@pytest.fixture
def fundsaga(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    dev_env: WorkflowEnvironment,
    client: FundsagaClient,
    database_url: str,
    tmp_path: Path,
) -> FundsagaCli:
    """`fundsaga ...` as a user types it, configured by environment for the test's worker."""
    monkeypatch.setenv("TEMPORAL_ADDRESS", dev_env.client.service_client.config.target_host)
    monkeypatch.setenv("FUNDSAGA_TASK_QUEUE", client.task_queue)
    monkeypatch.setenv("FUNDSAGA_DATABASE_URL", database_url)
    monkeypatch.setenv("FUNDSAGA_AUDIT_STORE", f"dir:{tmp_path / 'audit'}")
    monkeypatch.setenv("FUNDSAGA_AUDIT_ANCHOR_STORE", f"dir:{tmp_path / 'anchors'}")

    async def run(*argv: str) -> CliResult:
        capsys.readouterr()
        code = await asyncio.to_thread(run_cli, list(argv))
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def cli_args(request: dict[str, Any]) -> list[str]:
    flags = {
        "idempotency_key": "--key",
        "source_account": "--from",
        "destination_account": "--to",
        "amount": "--amount",
        "currency": "--currency",
        "reference": "--reference",
    }
    return ["transfer", "start", "--wait", *(p for k, v in request.items() for p in (flags[k], v))]


async def start_json(
    temporal: TemporalCli,
    client: FundsagaClient,
    key: str,
    *inputs: str,
    input_file: Path | None = None,
) -> subprocess.CompletedProcess[str]:
    """`temporal workflow start` with hand-written JSON inputs, or a file for a big one."""
    source = [part for text in inputs for part in ("--input", text)]
    if input_file is not None:
        source += ["--input-file", str(input_file)]
    return await temporal(
        "workflow",
        "start",
        "--type",
        client.workflow_type("transfer"),
        "--task-queue",
        client.task_queue,
        "--workflow-id",
        saga_id("transfer", key),
        *source,
    )


async def describe_json(temporal: TemporalCli, key: str) -> dict[str, Any]:
    """`temporal workflow describe -o json`, as a non-Python operator reads the saga."""
    described = await temporal(
        "workflow", "describe", "--workflow-id", saga_id("transfer", key), "--output", "json"
    )
    assert described.returncode == 0, described.stderr
    document: dict[str, Any] = json.loads(described.stdout)
    return document


async def no_workflow(client: FundsagaClient, key: str) -> bool:
    try:
        await client.saga("transfer", key).workflow.describe()
    except RPCError as err:
        return err.status is RPCStatusCode.NOT_FOUND
    return False


def assert_untouched(ledger: Ledger, before: LedgerState, key: str) -> None:
    """Nothing changed and nothing was written for the saga, not even a snapshot."""
    assert LedgerState.of(ledger) == before
    assert ledger.snapshots(saga_id("transfer", key)) == []


async def launch(
    entry: Entry,
    request: dict[str, Any],
    client: FundsagaClient,
    fundsaga: FundsagaCli,
    temporal: TemporalCli,
) -> int | None:
    """Start the transfer through `entry`; the CLI's exit code once the saga has ended."""
    if entry is Entry.PYTHON:
        await client.start("transfer", request)
        return None
    if entry is Entry.CLI:
        return (await fundsaga(*cli_args(request))).code
    started = await start_json(temporal, client, request["idempotency_key"], hand_written(request))
    assert started.returncode == 0, started.stderr
    return None


# ---- refused up front: Python client and CLI


@SQLITE_ONLY
@pytest.mark.parametrize(("changes", "field"), [*REFUSED, *UNKNOWN])
async def test_the_python_client_refuses_bad_input_naming_the_field(
    client: FundsagaClient, accounts: Ledger, changes: dict[str, Any], field: str
) -> None:
    request = transfer(**changes)
    before = LedgerState.of(accounts)

    with pytest.raises(InvalidRequestError) as refused:
        await client.start("transfer", request)

    assert refused.value.field == field
    assert str(refused.value).startswith(f"{field}: ")
    assert await no_workflow(client, request["idempotency_key"])
    assert_untouched(accounts, before, request["idempotency_key"])


@SQLITE_ONLY
async def test_a_rejected_key_reused_with_a_corrected_request_completes(
    temporal: TemporalCli, client: FundsagaClient, accounts: Ledger
) -> None:
    corrected = transfer()
    key = corrected["idempotency_key"]
    refused = await start_json(temporal, client, key, hand_written(corrected, amount='"0"'))
    assert refused.returncode == 0, refused.stderr
    await assert_rejected_at_once(temporal, client, key, "amount")

    await client.start("transfer", corrected)
    outcome = await client.saga("transfer", key).wait()

    assert outcome.status is SagaStatus.COMPLETED
    assert (await client.saga("transfer", key).view()).status is SagaStatus.COMPLETED


@SQLITE_ONLY
async def test_a_request_that_names_a_key_twice_is_rejected_at_once_naming_the_key(
    temporal: TemporalCli, client: FundsagaClient, accounts: Ledger
) -> None:
    """A reviewer reading the first `source_account` would see another payer than a parser
    that keeps the last one."""
    request = transfer()
    key = request["idempotency_key"]
    before = LedgerState.of(accounts)
    document = hand_written(request).replace(
        '"source_account": ', '"source_account": "acc-b", "source_account": ', 1
    )

    started = await start_json(temporal, client, key, document)

    assert started.returncode == 0, started.stderr
    await assert_rejected_at_once(temporal, client, key, "source_account")
    assert_untouched(accounts, before, key)


@SQLITE_ONLY
async def test_the_cli_refuses_a_request_that_names_a_key_twice(
    fundsaga: FundsagaCli, client: FundsagaClient, accounts: Ledger
) -> None:
    request = transfer()
    key = request["idempotency_key"]
    before = LedgerState.of(accounts)
    document = hand_written(request).replace('"amount": ', '"amount": "1.00", "amount": ', 1)

    result = await fundsaga("sagas", "start", "--type", "transfer", "--request", document)

    assert result.code == 2
    assert "request.amount: appears twice" in result.err
    assert await no_workflow(client, key)
    assert_untouched(accounts, before, key)


@SQLITE_ONLY
@pytest.mark.parametrize("number", JSON_NUMBERS)
async def test_the_python_client_refuses_an_amount_given_as_a_number(
    client: FundsagaClient, accounts: Ledger, number: str
) -> None:
    request = transfer(amount=json.loads(number))
    before = LedgerState.of(accounts)

    with pytest.raises(InvalidRequestError) as refused:
        await client.start("transfer", request)

    assert refused.value.field == "amount"
    assert await no_workflow(client, request["idempotency_key"])
    assert_untouched(accounts, before, request["idempotency_key"])


@SQLITE_ONLY
@pytest.mark.parametrize(("changes", "field"), [*REFUSED, *UNKNOWN])
async def test_the_cli_exits_2_naming_the_field(
    fundsaga: FundsagaCli,
    client: FundsagaClient,
    accounts: Ledger,
    changes: dict[str, Any],
    field: str,
) -> None:
    request = transfer(**changes)
    before = LedgerState.of(accounts)

    result = await fundsaga(*cli_args(request))

    assert result.code == 2
    assert result.err.startswith(f"error: {field}: ")
    assert result.out == ""
    assert await no_workflow(client, request["idempotency_key"])
    assert_untouched(accounts, before, request["idempotency_key"])


# ---- JSON from a non-Python client: the saga is REJECTED at once


async def assert_rejected_at_once(
    temporal: TemporalCli, client: FundsagaClient, key: str, field: str
) -> None:
    """REJECTED naming `field`, no step run, as Python and the temporal CLI see it."""
    with pytest.raises(SagaRejectedError) as rejected:
        await asyncio.wait_for(client.saga("transfer", key).wait(), AT_ONCE_S)
    history = await client.saga("transfer", key).workflow.fetch_history()
    described = await describe_json(temporal, key)
    view = await client.saga("transfer", key).view()

    failure = rejected.value.outcome.failure
    assert failure is not None
    assert (failure.reason, failure.field) == (FailureReason.INVALID_INPUT, field)
    assert failure.message.startswith(f"{field}: ")
    assert described["workflowExecutionInfo"]["status"] == "WORKFLOW_EXECUTION_STATUS_COMPLETED"
    assert view.status is SagaStatus.REJECTED
    assert view.snapshots == []
    scheduled = {
        e.activity_task_scheduled_event_attributes.activity_type.name
        for e in history.events
        if e.HasField("activity_task_scheduled_event_attributes")
    }
    assert scheduled == {"audit.record"}


@SQLITE_ONLY
@pytest.mark.parametrize(("changes", "field"), REFUSED)
async def test_hand_written_json_is_rejected_at_once_naming_the_field(
    temporal: TemporalCli,
    client: FundsagaClient,
    accounts: Ledger,
    changes: dict[str, Any],
    field: str,
) -> None:
    request = transfer(**changes)
    key = request["idempotency_key"]
    before = LedgerState.of(accounts)

    started = await start_json(temporal, client, key, hand_written(request))

    assert started.returncode == 0, started.stderr
    await assert_rejected_at_once(temporal, client, key, field)
    assert_untouched(accounts, before, key)


@SQLITE_ONLY
@pytest.mark.parametrize("number", JSON_NUMBERS)
async def test_an_amount_written_as_a_json_number_is_rejected_at_once(
    temporal: TemporalCli, client: FundsagaClient, accounts: Ledger, number: str
) -> None:
    request = transfer()
    key = request["idempotency_key"]
    before = LedgerState.of(accounts)

    started = await start_json(temporal, client, key, hand_written(request, amount=number))

    assert started.returncode == 0, started.stderr
    await assert_rejected_at_once(temporal, client, key, "amount")
    assert_untouched(accounts, before, key)


@SQLITE_ONLY
async def test_json_that_is_not_json_is_refused_by_the_temporal_cli(
    temporal: TemporalCli, client: FundsagaClient, accounts: Ledger
) -> None:
    key = f"bad-{uuid.uuid4().hex[:12]}"
    before = LedgerState.of(accounts)
    document = hand_written(transfer(idempotency_key=key), amount="NaN")

    started = await start_json(temporal, client, key, document)

    assert started.returncode == 1
    assert "not valid JSON" in started.stderr
    assert await no_workflow(client, key)
    assert_untouched(accounts, before, key)


@SQLITE_ONLY
@pytest.mark.parametrize("count", [0, 2], ids=["no-input", "two-inputs"])
async def test_a_json_launch_without_exactly_one_input_is_rejected_at_once(
    temporal: TemporalCli, client: FundsagaClient, accounts: Ledger, count: int
) -> None:
    request = transfer()
    key = request["idempotency_key"]
    before = LedgerState.of(accounts)

    started = await start_json(temporal, client, key, *[hand_written(request)] * count)
    try:
        assert started.returncode == 0, started.stderr
        await assert_rejected_at_once(temporal, client, key, "request")
    finally:
        if not await client.saga("transfer", key).is_closed():
            await client.saga("transfer", key).workflow.terminate("stuck on bad input")
    assert_untouched(accounts, before, key)


# ---- an oversized payload


@SQLITE_ONLY
@pytest.mark.parametrize("entry", list(Entry))
async def test_an_oversized_payload_is_refused_with_no_workflow_and_no_ledger_row(
    entry: Entry,
    client: FundsagaClient,
    fundsaga: FundsagaCli,
    temporal: TemporalCli,
    accounts: Ledger,
    tmp_path: Path,
) -> None:
    request = transfer(reference="x" * OVERSIZED)
    key = request["idempotency_key"]
    before = LedgerState.of(accounts)

    if entry is Entry.PYTHON:
        with pytest.raises(InvalidRequestError) as refused:
            await client.start("transfer", request)
        assert refused.value.field == "reference"
    elif entry is Entry.CLI:
        result = await fundsaga(*cli_args(request))
        assert (result.code, result.err) == (2, "error: reference: is longer than 140 characters\n")
    else:
        document = tmp_path / "oversized.json"
        document.write_text(json.dumps(request))
        started = await start_json(temporal, client, key, input_file=document)
        assert started.returncode == 1
        assert "size exceeds limit" in started.stderr

    assert await no_workflow(client, key)
    assert_untouched(accounts, before, key)


# ---- what only the ledger knows: business errors, compensated with no money moved


def assert_compensated_with_no_money_moved(
    ledger: Ledger, before: LedgerState, saga_id: str
) -> None:
    after = LedgerState.of(ledger)
    assert after.amounts == before.amounts
    assert ledger.net_effect(saga_id) == {}
    assert all(
        h.status in (HoldStatus.POSTED, HoldStatus.VOIDED) for h in ledger.holds(saga_id=saga_id)
    )
    assert ledger.check_invariants() == []


@SQLITE_ONLY
@pytest.mark.parametrize(("changes", "error_type"), BLOCKED)
@pytest.mark.parametrize("entry", [Entry.PYTHON, Entry.CLI])
async def test_frozen_or_closed_accounts_are_refused_up_front_naming_the_field(
    entry: Entry,
    changes: dict[str, Any],
    error_type: str,
    client: FundsagaClient,
    fundsaga: FundsagaCli,
    temporal: TemporalCli,
    accounts: Ledger,
    audit_store: AuditStore,
) -> None:
    request = transfer(**changes)
    key = request["idempotency_key"]
    ((field, account),) = changes.items()
    status = "frozen" if error_type == "AccountFrozenError" else "closed"
    said = f"{field}: account {account!r} is {status}: it takes no new movements"
    before = LedgerState.of(accounts)

    if entry is Entry.PYTHON:
        with pytest.raises(InvalidRequestError) as refused:
            await launch(entry, request, client, fundsaga, temporal)
        assert (refused.value.field, str(refused.value)) == (field, said)
    else:
        result = await fundsaga(*cli_args(request))
        assert (result.code, result.err, result.out) == (2, f"error: {said}\n", "")

    assert await no_workflow(client, key)
    assert audit_store.records(saga_id=saga_id("transfer", key)) == []
    assert_untouched(accounts, before, key)


@SQLITE_ONLY
@pytest.mark.parametrize(("changes", "error_type"), BLOCKED)
async def test_frozen_or_closed_accounts_in_json_compensate_naming_the_field(
    changes: dict[str, Any],
    error_type: str,
    client: FundsagaClient,
    temporal: TemporalCli,
    accounts: Ledger,
    audit_store: AuditStore,
) -> None:
    request = transfer(**changes)
    key = request["idempotency_key"]
    ((field, account),) = changes.items()
    before = LedgerState.of(accounts)

    started = await start_json(temporal, client, key, hand_written(request))
    outcome = await client.saga("transfer", key).outcome()

    assert started.returncode == 0, started.stderr
    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert (outcome.failure.error_type, outcome.failure.field) == (error_type, field)
    assert f"{field}: account {account!r} is" in outcome.failure.message
    assert [r.kind for r in audit_store.records(saga_id=outcome.saga_id)] == ["terminal"]
    assert_compensated_with_no_money_moved(accounts, before, outcome.saga_id)


@SQLITE_ONLY
@pytest.mark.parametrize(("changes", "field"), UNKNOWN)
async def test_unknown_accounts_in_json_compensate_at_the_first_step(
    temporal: TemporalCli,
    client: FundsagaClient,
    accounts: Ledger,
    changes: dict[str, Any],
    field: str,
) -> None:
    request = transfer(**changes)
    key = request["idempotency_key"]
    before = LedgerState.of(accounts)

    started = await start_json(temporal, client, key, hand_written(request))
    outcome = await client.saga("transfer", key).outcome()

    assert started.returncode == 0, started.stderr
    assert outcome.status is SagaStatus.COMPENSATED
    assert outcome.failure is not None
    assert (outcome.failure.step_name, outcome.failure.error_type) == (
        "reserve",
        "UnknownAccountError",
    )
    assert outcome.failure.field == field
    assert f"{field}: no account {changes[field]!r}" in outcome.failure.message
    assert accounts.entries(saga_id=outcome.saga_id) == []
    assert_compensated_with_no_money_moved(accounts, before, outcome.saga_id)


# ---- the positive control: 1.234 BHD has exactly the three decimals BHD allows


@SQLITE_ONLY
@pytest.mark.parametrize("entry", list(Entry))
async def test_three_decimals_in_bhd_are_valid_at_every_entry_point(
    entry: Entry,
    client: FundsagaClient,
    fundsaga: FundsagaCli,
    temporal: TemporalCli,
    accounts: Ledger,
) -> None:
    request = transfer(
        source_account="bhd-a", destination_account="bhd-b", currency="BHD", amount="1.234"
    )

    exit_code = await launch(entry, request, client, fundsaga, temporal)
    outcome = await client.saga("transfer", request["idempotency_key"]).outcome()

    assert outcome.status is SagaStatus.COMPLETED
    assert exit_code == (0 if entry is Entry.CLI else None)
    assert accounts.account("bhd-a").balance == parse_money("8.766", "BHD")
    assert accounts.account("bhd-b").balance == parse_money("1.234", "BHD")
    assert accounts.check_invariants() == []


# ---- properties of TransferRequest.parse (the money parser itself: tests/unit/test_money.py)

FIELDS = sorted(TransferRequest.model_fields)
JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=5,
)
CHANGES = st.dictionaries(st.sampled_from([*FIELDS, "callback_url"]), JSON_VALUES, max_size=3)
AMOUNTS = st.one_of(
    st.text(max_size=25), st.from_regex(r"[0-9]{1,21}(\.[0-9]{0,4})?", fullmatch=True)
)
CODES = st.sampled_from(["EUR", "JPY", "BHD", "USD"])


def parsed(data: dict[str, Any]) -> TransferRequest | InvalidRequestError:
    try:
        return TransferRequest.parse(data)
    except InvalidRequestError as err:
        return err


def decoded_by_the_workflow(data: dict[str, Any]) -> TransferRequest | InvalidRequestError:
    """What the workflow makes of the same request sent as JSON by a non-Python client."""
    payload = Payload(metadata={"encoding": b"json/plain"}, data=json.dumps(data).encode())
    try:
        request: TransferRequest = pydantic_data_converter.payload_converter.from_payload(
            payload, TransferRequest
        )
    except Exception as err:
        return invalid_request_from(err)
    return request


@settings(database=None, max_examples=300)
@given(changes=CHANGES)
def test_any_json_request_is_accepted_or_refused_naming_a_field(changes: dict[str, Any]) -> None:
    data = {"idempotency_key": "prop-1", **VALID, **changes}

    result = parsed(data)

    if isinstance(result, InvalidRequestError):
        assert result.field in {*FIELDS, *data, "request"}
        assert str(result).startswith(f"{result.field}: ")
    else:
        assert result.source_account != result.destination_account
        assert result.money.minor > 0
        assert result.reference.isprintable()
        assert len(result.reference) <= 140


@settings(database=None, max_examples=300)
@given(changes=CHANGES)
def test_the_workflow_decodes_json_exactly_as_the_client_parses_it(
    changes: dict[str, Any],
) -> None:
    data = {"idempotency_key": "prop-1", **VALID, **changes}

    by_client, by_workflow = parsed(data), decoded_by_the_workflow(data)

    if isinstance(by_client, InvalidRequestError):
        assert isinstance(by_workflow, InvalidRequestError)
        assert by_workflow.field == by_client.field
    else:
        assert by_workflow == by_client


@settings(database=None, max_examples=500)
@given(amount=AMOUNTS, code=CODES)
def test_a_request_takes_an_amount_exactly_when_the_money_parser_does(
    amount: str, code: str
) -> None:
    data = {**VALID, "idempotency_key": "prop-1", "currency": code, "amount": amount}

    result = parsed(data)

    try:
        money = parse_money(amount, code)
    except InvalidRequestError:
        assert isinstance(result, InvalidRequestError)
        assert result.field == "amount"
        return
    assert isinstance(result, TransferRequest)
    assert result.money == money


@settings(database=None, max_examples=300)
@given(first=AMOUNTS, second=AMOUNTS, code=CODES)
def test_two_requests_share_a_fingerprint_exactly_when_they_ask_for_the_same_money(
    first: str, second: str, code: str
) -> None:
    one = parsed({**VALID, "idempotency_key": "prop-1", "currency": code, "amount": first})
    two = parsed({**VALID, "idempotency_key": "prop-1", "currency": code, "amount": second})
    if isinstance(one, InvalidRequestError) or isinstance(two, InvalidRequestError):
        return

    assert (one.fingerprint() == two.fingerprint()) == (one.money == two.money)
