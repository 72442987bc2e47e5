"""A dev server with its Web UI and a worker, after the demo (`fundsaga dev --demo`'s catalog
without its external payouts) and one transfer of each other outcome: refused, parked, resolved,
waiting on the infrastructure, killed with its recovery waiting, killed then recovered."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path

from temporalio.client import Client, WorkflowExecutionStatus
from temporalio.common import SearchAttributePair, TypedSearchAttributes

from sagas import SagaStatus, parse_faults, parse_money
from sagas.client import FundsagaClient, SagaHandle
from sagas.demo import DEMO_FAULTS, run_demo
from sagas.engine import SAGA_STATUS, SAGA_TYPE, SAGA_WAITING_ON, recovery_id, saga_id
from sagas.foundations import SagaNotFoundError
from sagas.servers import free_port, start_dev_server
from sagas.testing import (
    assert_eventually,
    dev_identity,
    directory_audit_store,
    kit_operator,
    new_task_queue,
    resolve_by_two,
    sqlite_ledger,
)
from sagas.worker import build_worker
from tests.unchecked import unchecked
from tests.webui.saga_list import documented_list_query

INFRASTRUCTURE_FAULT = "LedgerUnavailableError"
VISIBLE = timedelta(seconds=60)
"""How long a saga may take to show what the rig waits for (its quick retries first)."""
RUNNING, PARKED = SagaStatus.RUNNING.value, SagaStatus.NEEDS_ATTENTION.value


@dataclass(frozen=True)
class Row:
    """What an operator reads on a saga's row: Temporal's badge and the saga's columns."""

    badge: str
    saga_status: str
    saga_type: str = "transfer"
    waiting_on: str = ""


@dataclass
class Shown:
    ui: str
    temporal: Client
    rows: dict[str, Row] = field(default_factory=dict)
    """Workflow id → the row the list shows for it."""
    outcomes: dict[str, set[str]] = field(default_factory=dict)
    """Outcome (as the page's table of queries names it) → the workflow ids its query lists."""
    killed: str = ""
    """A killed saga whose recovery waits for its operators."""
    recovered: str = ""
    """A killed saga that its recovery compensated."""

    def add(self, outcome: str, workflow_id: str, row: Row) -> None:
        self.rows[workflow_id] = row
        self.outcomes.setdefault(outcome, set()).add(workflow_id)


@dataclass(frozen=True)
class Accounts:
    source: str
    frozen: str
    stuck: str
    """Taking back a capture from it is refused: a saga from it to `frozen` parks."""
    down: str
    """Crediting it meets an unavailable ledger: a saga to it waits."""


@asynccontextmanager
async def every_outcome(tmp: Path) -> AsyncIterator[Shown]:
    """The rig, once Temporal's list (its visibility) shows each saga as `Shown.rows` says."""
    ui_port = free_port()
    env = await start_dev_server(port=None, ui_port=ui_port)
    tag = uuid.uuid4().hex[:6]
    accounts = Accounts(*(f"{name}-{tag}" for name in ("src", "frozen", "stuck", "down")))
    ledger = sqlite_ledger(tmp)
    for account in (accounts.source, accounts.stuck):
        ledger.open_account(account, "EUR", opening_balance=parse_money("500.00", "EUR"))
    for account in (accounts.frozen, accounts.down):
        ledger.open_account(account, "EUR")
    ledger.freeze(accounts.frozen)
    faults = parse_faults(
        f"{DEMO_FAULTS};transfer/capture.compensation=business@{accounts.stuck};"
        f"transfer/credit=transient({INFRASTRUCTURE_FAULT})@{accounts.down}"
    )
    queue = new_task_queue()
    store = directory_audit_store(tmp / "audit")
    async with AsyncExitStack() as stack:
        stack.push_async_callback(env.shutdown)
        operators = dev_identity().check()
        worker = build_worker(env.client, queue, ledger, store, faults, operators=operators)
        await stack.enter_async_context(worker)
        client = FundsagaClient(env.client, queue, ledger, operator=kit_operator("demo"))
        shown = Shown(f"http://localhost:{ui_port}", env.client)
        await _demo(client, shown)
        await _others(client, shown, accounts, tag)
        await assert_eventually(lambda: _visible(shown), timeout=VISIBLE)
        yield shown


async def _demo(client: FundsagaClient, shown: Shown) -> None:
    for run in await run_demo(client, shown.ui, None):
        status = run.outcome.status
        outcome = "completed" if status is SagaStatus.COMPLETED else "compensated"
        shown.add(outcome, run.outcome.saga_id, Row("Completed", status.value, run.plan.saga_type))


async def _others(client: FundsagaClient, shown: Shown, accounts: Accounts, tag: str) -> None:
    refused = await _refused(client, f"refused-{tag}", accounts)
    shown.add("refused", refused, Row("Completed", SagaStatus.REJECTED.value))
    parked, resolved = [
        await _transfer(unchecked(client), f"{name}-{tag}", accounts.stuck, accounts.frozen)
        for name in ("parked", "resolved")
    ]
    shown.add("parked", parked.saga_id, Row("Running", PARKED))
    shown.add("resolved", resolved.saga_id, Row("Completed", SagaStatus.RESOLVED.value))
    waiting, killed, recovered = [
        await _transfer(client, f"{name}-{tag}", accounts.source, accounts.down)
        for name in ("waiting", "killed", "recovered")
    ]
    shown.add("waiting", waiting.saga_id, Row("Running", RUNNING, waiting_on=INFRASTRUCTURE_FAULT))
    for saga in (parked, resolved):
        await _shows(saga, PARKED)
    for saga in (waiting, killed, recovered):
        await _shows(saga, RUNNING, INFRASTRUCTURE_FAULT)
    await resolve_by_two(resolved, "capture taken back by hand")
    assert (await resolved.outcome()).status is SagaStatus.RESOLVED
    await _killed(client, [killed, recovered])
    for saga in (killed, recovered):
        row = Row("Terminated", RUNNING, waiting_on=INFRASTRUCTURE_FAULT)
        shown.add("killed", saga.saga_id, row)
    shown.killed, shown.recovered = killed.saga_id, recovered.saga_id
    shown.add("recoveries", recovery_id(killed.saga_id), Row("Running", SagaStatus.KILLED.value))
    await _recover(client, recovered)
    compensated = Row("Completed", SagaStatus.COMPENSATED.value)
    for outcome in ("recoveries", "compensated"):
        shown.add(outcome, recovery_id(recovered.saga_id), compensated)


async def _transfer(client: FundsagaClient, key: str, source: str, destination: str) -> SagaHandle:
    request = {"source_account": source, "destination_account": destination, "currency": "EUR"}
    await client.start("transfer", request | {"idempotency_key": key, "amount": "5.00"})
    return client.saga("transfer", key)


async def _refused(client: FundsagaClient, key: str, accounts: Accounts) -> str:
    """A transfer started as a service in another language may start one, with an amount the
    saga refuses (the Python client refuses it before anything starts)."""
    request = {
        "idempotency_key": key,
        "source_account": accounts.source,
        "destination_account": accounts.frozen,
        "amount": "-5.00",
        "currency": "EUR",
    }
    workflow_id = saga_id("transfer", key)
    attributes = [
        SearchAttributePair(SAGA_TYPE, "transfer"),
        SearchAttributePair(SAGA_STATUS, RUNNING),
    ]
    await client.temporal.start_workflow(
        client.workflow_type("transfer"),
        request,
        id=workflow_id,
        task_queue=client.task_queue,
        search_attributes=TypedSearchAttributes(attributes),
        static_summary=f"transfer {key}",
    )
    return workflow_id


async def _shows(saga: SagaHandle, status: str, waiting_on: str = "") -> None:
    async def listed() -> None:
        attributes = (await saga.describe()).typed_search_attributes
        assert attributes.get(SAGA_STATUS) == status
        assert (attributes.get(SAGA_WAITING_ON) or "") == waiting_on

    await assert_eventually(listed, timeout=VISIBLE)


async def _killed(client: FundsagaClient, sagas: list[SagaHandle]) -> None:
    """Terminated from outside while they wait; then found and their recoveries started, as
    the collector does, once each recovery has read what its saga did."""
    for saga in sagas:
        await saga.workflow.terminate(reason="killed by hand")
    started: set[str] = set()

    async def found() -> None:
        started.update(await client.recoveries().open_recoveries())
        assert started == {saga.saga_id for saga in sagas}
        for saga in sagas:
            try:
                await client.recoveries().view(saga.saga_id)
            except SagaNotFoundError as err:
                raise AssertionError(str(err)) from err

    await assert_eventually(found)


async def _recover(client: FundsagaClient, saga: SagaHandle) -> None:
    """One operator proposes the recovery, another approves it: the saga is compensated."""
    maker = replace(client.recoveries(), operator=kit_operator("maker"))
    checker = replace(client.recoveries(), operator=kit_operator("checker"))
    proposal = await maker.propose(saga.saga_id, "killed by hand: undo it")
    assert await checker.approve(saga.saga_id, proposal) is SagaStatus.COMPENSATED


async def _visible(shown: Shown) -> None:
    """Temporal's visibility, which the list shows, holds every row as expected."""
    found = {
        execution.id: (execution.status, execution.typed_search_attributes.get(SAGA_STATUS))
        async for execution in shown.temporal.list_workflows(documented_list_query())
    }
    for workflow_id, row in shown.rows.items():
        status, saga_status = found[workflow_id]
        assert status is not None
        assert badge(status) == row.badge.upper()
        assert saga_status == row.saga_status


def badge(status: WorkflowExecutionStatus) -> str:
    """The badge's text in the list for an execution status (TIMED_OUT: TIMED OUT)."""
    return status.name.replace("_", " ")
