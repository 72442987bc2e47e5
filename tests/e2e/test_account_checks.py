"""Every account a request names is checked before anything starts, for every saga type: each
field its request declares (`account_fields()`) is refused, by name, when its account is
unknown, holds another currency than the request moves on it, or is frozen or closed; and
nothing is written: no workflow, no ledger row, no snapshot.

The types are the registry's built-in ones and the test-only escrow; each starts from the
request its testing-kit scenario completes with (a batch from its item type's).
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from typing import Any

import pytest
from temporalio.service import RPCError, RPCStatusCode
from temporalio.testing import WorkflowEnvironment

from sagas import InvalidRequestError, SagaRequest, SagaStatus, parse_money
from sagas.audit import AuditStore
from sagas.client import FundsagaClient, saga_id
from sagas.ledger import AccountView, Ledger
from sagas.registry import SagaType, load_registry
from sagas.worker import build_worker
from tests.e2e.conftest import fundsaga
from tests.escrow.scenario import ESCROW_SCENARIO
from tests.fees.scenario import FEE_SCENARIO
from tests.fixtures_temporal import new_task_queue
from tests.fx.scenario import FX_SCENARIO
from tests.payouts.scenario import PAYOUT_SCENARIO
from tests.scenarios import TRANSFER_SCENARIO
from tests.sweep.scenario import SWEEP_SCENARIO

REGISTRY = load_registry(["tests.escrow"])
SCENARIOS = {
    s.name: s
    for s in (
        TRANSFER_SCENARIO,
        FEE_SCENARIO,
        FX_SCENARIO,
        PAYOUT_SCENARIO,
        SWEEP_SCENARIO,
        ESCROW_SCENARIO,
    )
}
ITEM = re.compile(r"(?P<list>\w+)\[(?P<number>\d+)\]\.(?P<field>\w+)")


def base_request(saga_type: SagaType, ledger: Ledger, key: str) -> dict[str, Any]:
    """A request of the type that would start, its accounts opened on `ledger`."""
    item_type = saga_type.item_saga_type
    scenario = SCENARIOS[item_type or saga_type.name]
    scenario.fund(ledger)
    request = scenario.request(key).model_dump(mode="json")
    if item_type is None:
        return request
    del request["idempotency_key"]
    return {"idempotency_key": key, "items": [request]}


def with_account(request: dict[str, Any], field: str, account_id: str) -> dict[str, Any]:
    """The request with `field` (`source_account`, `items[1].account`) naming `account_id`."""
    changed = {**request, "idempotency_key": f"chk-{uuid.uuid4().hex[:12]}"}
    item = ITEM.fullmatch(field)
    if item is None:
        return changed | {field: account_id}
    items = [dict(i) for i in changed[item["list"]]]
    items[int(item["number"]) - 1][item["field"]] = account_id
    return changed | {item["list"]: items}


@dataclass(frozen=True)
class Refusal:
    name: str
    account: Callable[[Ledger, str], str]
    """Opens (or not) the refused account in the currency the request moves, returns its id."""
    says: str


def _unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def _unknown(_ledger: Ledger, _code: str) -> str:
    return _unique("ghost")


def _other_currency(ledger: Ledger, code: str) -> str:
    account_id = _unique("other")
    ledger.open_account(account_id, "JPY" if code != "JPY" else "EUR")
    return account_id


def _frozen(ledger: Ledger, code: str) -> str:
    account_id = _unique("frozen")
    ledger.open_account(account_id, code, opening_balance=parse_money("1000", code))
    ledger.freeze(account_id)
    return account_id


def _closed(ledger: Ledger, code: str) -> str:
    account_id = _unique("closed")
    ledger.open_account(account_id, code)
    ledger.close_account(account_id)
    return account_id


REFUSALS = [
    Refusal("unknown", _unknown, "unknown account"),
    Refusal("other-currency", _other_currency, "holds"),
    Refusal("frozen", _frozen, "is frozen"),
    Refusal("closed", _closed, "is closed"),
]


@dataclass(frozen=True)
class Written:
    """What the ledger holds: every account's amounts, entries, holds."""

    amounts: dict[str, tuple[int, int]]
    entries: int
    holds: int

    @classmethod
    def of(cls, ledger: Ledger) -> Written:
        views = ledger.accounts(include_system=True)
        return cls(
            {a.account_id: (a.balance.minor, a.held.minor) for a in views},
            len(ledger.entries()),
            len(ledger.holds()),
        )


EVERY_TYPE = [pytest.param(saga_type, id=saga_type.name) for saga_type in REGISTRY]


def test_the_test_covers_every_registered_type() -> None:
    covered = {t.name for t in REGISTRY if (t.item_saga_type or t.name) in SCENARIOS}
    assert covered == set(REGISTRY.names())


async def no_workflow(client: FundsagaClient, saga_type: str, key: str) -> bool:
    try:
        await client.saga(saga_type, key).workflow.describe()
    except RPCError as err:
        return err.status is RPCStatusCode.NOT_FOUND
    return False


@pytest.mark.parametrize("saga_type", EVERY_TYPE)
async def test_every_declared_account_field_is_checked_up_front_writing_nothing(
    saga_type: SagaType, ledger: Ledger, dev_env: WorkflowEnvironment
) -> None:
    client = FundsagaClient(dev_env.client, new_task_queue(), ledger, registry=REGISTRY)
    base = base_request(saga_type, ledger, f"chk-{uuid.uuid4().hex[:12]}")
    declared: SagaRequest = REGISTRY.parse_request(saga_type.name, base)
    fields, currencies = declared.account_fields(), declared.account_currencies()
    assert fields
    assert set(currencies) == set(fields)  # a currency for every account field

    refused: list[tuple[str, str, str]] = []
    for field in sorted(fields):
        for refusal in REFUSALS:
            account_id = refusal.account(ledger, currencies[field])
            request = with_account(base, field, account_id)
            before = Written.of(ledger)
            with pytest.raises(InvalidRequestError) as error:
                await client.start(saga_type.name, request)
            key = request["idempotency_key"]
            assert Written.of(ledger) == before
            assert ledger.snapshots(saga_id(saga_type.name, key)) == []
            assert ledger.claim_of(saga_id(saga_type.name, key)) is None
            assert await no_workflow(client, saga_type.name, key)
            assert str(error.value).startswith(f"{field}: account {account_id!r} ") or (
                str(error.value) == f"{field}: unknown account {account_id!r}"
            )
            refused.append((field, refusal.name, error.value.field))
            assert refusal.says in error.value.problem

    assert refused == [(f, r.name, f) for f in sorted(fields) for r in REFUSALS]
    assert await client.list_sagas() == []
    started = await client.start(saga_type.name, base)  # the control: the base request starts
    await started.terminate("the account checks' control")


# ---- the finding: a transfer or payout in EUR from a JPY account, through every entry point

JPY_ACCOUNT = "jpy-1"
FINDING = [
    pytest.param(
        "transfer",
        {"source_account": JPY_ACCOUNT, "destination_account": "eur-1"},
        "source_account",
        id="transfer",
    ),
    pytest.param(
        "payout", {"account": JPY_ACCOUNT, "beneficiary": "DE-ben-1"}, "account", id="payout"
    ),
]
SQLITE_ONLY = pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)


def in_eur(accounts: dict[str, str]) -> dict[str, str]:
    key = f"jpy-{uuid.uuid4().hex[:12]}"
    return {"idempotency_key": key, **accounts, "currency": "EUR", "amount": "10.00"}


@pytest.fixture
async def worker(
    dev_env: WorkflowEnvironment, ledger: Ledger, audit_store: AuditStore, cli_task_queue: str
) -> AsyncIterator[FundsagaClient]:
    """A worker on the CLI's task queue, a JPY account with money and an EUR one."""
    ledger.open_account(JPY_ACCOUNT, "JPY", opening_balance=parse_money("100000", "JPY"))
    ledger.open_account("eur-1", "EUR")
    async with build_worker(dev_env.client, cli_task_queue, ledger, audit_store):
        yield FundsagaClient(dev_env.client, cli_task_queue, ledger)


def cli_start(saga_type: str, request: dict[str, str]) -> list[str]:
    if saga_type != "transfer":
        return ["sagas", "start", "--type", saga_type, "--request", json.dumps(request)]
    flags = {"--key": "idempotency_key", "--from": "source_account", "--to": "destination_account"}
    flags |= {"--currency": "currency", "--amount": "amount"}
    return [
        "transfer",
        "start",
        *(p for flag, name in flags.items() for p in (flag, request[name])),
    ]


@SQLITE_ONLY
@pytest.mark.parametrize(("saga_type", "accounts", "field"), FINDING)
async def test_another_currency_is_refused_up_front_by_the_client_and_the_cli(
    worker: FundsagaClient,
    ledger: Ledger,
    audit_store: AuditStore,
    capsys: pytest.CaptureFixture[str],
    saga_type: str,
    accounts: dict[str, str],
    field: str,
) -> None:
    said = f"{field}: account {JPY_ACCOUNT!r} holds JPY, the request moves EUR on it"
    by_python, by_cli = in_eur(accounts), in_eur(accounts)
    before, records = Written.of(ledger), len(audit_store.records())

    with pytest.raises(InvalidRequestError) as refused:
        await worker.start(saga_type, by_python)
    capsys.readouterr()
    code = await fundsaga(*cli_start(saga_type, by_cli))
    printed = capsys.readouterr()

    assert (refused.value.field, str(refused.value)) == (field, said)
    assert (code, printed.err, printed.out) == (2, f"error: {said}\n", "")
    for request in (by_python, by_cli):
        key = request["idempotency_key"]
        assert await no_workflow(worker, saga_type, key)
        assert ledger.snapshots(saga_id(saga_type, key)) == []
        assert ledger.claim_of(saga_id(saga_type, key)) is None
    assert Written.of(ledger) == before
    assert len(audit_store.records()) == records
    assert await worker.list_sagas() == []


@SQLITE_ONLY
@pytest.mark.parametrize(("saga_type", "accounts", "field"), FINDING)
async def test_a_start_past_the_client_is_refused_by_its_step_naming_the_field(
    worker: FundsagaClient,
    ledger: Ledger,
    audit_store: AuditStore,
    saga_type: str,
    accounts: dict[str, str],
    field: str,
) -> None:
    """`temporal workflow start` or another SDK: no check before the start, so the first step
    refuses the account, names the field, and the saga compensates having moved nothing."""
    request = in_eur(accounts)
    key = request["idempotency_key"]
    before = Written.of(ledger)

    await worker.temporal.start_workflow(
        worker.workflow_type(saga_type),
        request,
        id=saga_id(saga_type, key),
        task_queue=worker.task_queue,
    )
    outcome = await worker.saga(saga_type, key).outcome()

    failure = outcome.failure
    assert outcome.status is SagaStatus.COMPENSATED
    assert failure is not None
    assert (failure.error_type, failure.field) == ("CurrencyMismatchError", field)
    said = f"{field}: account {JPY_ACCOUNT!r} holds JPY, not EUR"
    assert failure.message == f"CurrencyMismatchError: {said}"
    (record,) = audit_store.records(saga_id=outcome.saga_id)
    assert (record.payload["failed_field"], record.payload["error_class"]) == (
        field,
        "CurrencyMismatchError",
    )
    assert Written.of(ledger).amounts == before.amounts
    assert ledger.net_effect(outcome.saga_id) == {}


@SQLITE_ONLY
async def test_the_account_checks_leave_the_event_loop_free(
    worker: FundsagaClient, ledger: Ledger, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A service's event loop runs its other starts while a start reads the ledger."""
    loop_thread, readers = threading.get_ident(), set[int]()
    find_account = ledger.find_account

    def recorded(account_id: str) -> AccountView | None:
        readers.add(threading.get_ident())
        return find_account(account_id)

    monkeypatch.setattr(ledger, "find_account", recorded)
    ledger.open_account("eur-2", "EUR", opening_balance=parse_money("10.00", "EUR"))
    request = in_eur({"source_account": "eur-2", "destination_account": "eur-1"})

    launch = await worker.launch("transfer", request)
    outcome = await worker.saga("transfer", request["idempotency_key"]).outcome()

    assert launch.started
    assert outcome.status is SagaStatus.COMPLETED
    assert readers
    assert loop_thread not in readers
