"""Run a chaos schedule against real processes, let it quiesce, then check every invariant."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypeVar

from temporalio.client import WorkflowQueryFailedError as QueryFailed
from temporalio.service import RPCError

from sagas.audit import AnchorStore, AuditKeys, SigningKey, open_audit_store
from sagas.client import (
    DEV_AUDIENCE,
    DEV_ISSUER,
    DevIdentityProvider,
    FundsagaClient,
    SagaHandle,
    TemporalUnreachableError,
)
from sagas.engine import BatchOutcome, SagaOutcome, SagaStatus
from sagas.foundations import (
    LedgerUnavailableError,
    SagaNotFoundError,
    Settings,
    upgrade_database,
)
from sagas.ledger import EntryView, Ledger
from sagas.payouts import PAYOUT_BATCH
from sagas.registry import built_in_registry
from sagas.servers import free_port
from sagas.verify import LedgerWitness, TemporalWitness, temporal_witness, verified_records
from tooling.chaos._catalog import PROVIDER_TIMEOUT_SECONDS
from tooling.chaos._catalog_checks import rail_key
from tooling.chaos._check import Check
from tooling.chaos._checker import FaultsSeen, check_run
from tooling.chaos._funding import fund_accounts, open_accounts
from tooling.chaos._outage import OUTAGE_FLAG_ENV, DatabaseOutage, InjectedOutage
from tooling.chaos._parking import infrastructure_fault
from tooling.chaos._plan import ChaosPlan, PlannedSaga, batch_items
from tooling.chaos._processes import (
    DevServer,
    WorkerProcess,
    wait_for_port,
    webhook_receiver_args,
)
from tooling.chaos._rail import RailPayout, rail_payout, start_rail
from tooling.chaos._reconciliation import import_statements, reconciled
from tooling.chaos._recovery import recover_terminated
from tooling.chaos._spending import parked_by_spent_funds, spend_until
from tooling.chaos._terminations import terminate_under_way
from tooling.provider import ProviderProcess

T = TypeVar("T")
TASK_QUEUE = "chaos"
SAGA_TIMEOUT_S = 900
TERMINATED = "TERMINATED"
"""The status the run gives a saga it terminated from outside, until it is recovered."""
COMPENSATIONS = frozenset(
    step.compensation
    for saga_type in built_in_registry()
    for step in saga_type.definition.steps
    if step.compensation
)


@dataclass
class ChaosReport:
    plan: ChaosPlan
    checks: list[Check]
    statuses: dict[str, str]
    """Final status by saga id, the batches' items among them."""
    batch_outcomes: dict[str, BatchOutcome]
    """By batch saga id, the outcome of each batch that closed."""
    spends: int
    """Times a payee spent its whole available balance during the run."""
    parked_by_spent_funds: list[str]
    """Sagas parked because a compensation found the money it was to take back spent."""
    kills_issued: int
    worker_deaths: int
    restarts: int
    db_faults: int
    wall_seconds: float
    outage_seconds: float
    """How long the database was out; 0 without an outage."""
    outage_kind: str
    """What the outage did (DatabaseOutage.kind)."""
    terminated: list[str]
    """Sagas terminated from outside mid-run."""

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)


async def _retrying(call: Callable[[], Awaitable[T]]) -> T:
    """Retry a Temporal call while the server restarts; idempotent calls only."""
    for _ in range(600):
        try:
            return await call()
        except (RPCError, RuntimeError, TemporalUnreachableError, LedgerUnavailableError):
            await asyncio.sleep(0.5)
    return await call()


class ChaosRun:
    def __init__(
        self,
        plan: ChaosPlan,
        database_url: str,
        workdir: Path,
        outage: DatabaseOutage | None = None,
    ) -> None:
        """`outage`: how the database goes out mid-run (a ClusterOutage of the run's own
        PostgreSQL cluster); by default it is injected into the chaos workers."""
        self.plan = plan
        self.database_url = database_url
        self.workdir = workdir
        self.outage = outage or InjectedOutage(workdir / "db-outage.flag")
        self.outage_seconds = 0.0
        self.terminated: list[str] = []
        self.identity = DevIdentityProvider(self.workdir / "identity")
        self.recovered: dict[str, str] | None = None
        self.parked_by_infrastructure: dict[str, str] = {}
        self.server = DevServer(workdir / "temporal.db", free_port(), workdir / "server.log")
        self.audit_spec = f"dir:{workdir / 'audit'}"
        self.anchor_spec = f"dir:{workdir / 'anchors'}"
        self.signing_key = workdir / "audit-signing.key"
        self.audit_keys = AuditKeys.for_writer(_new_key(self.signing_key))
        self.webhook_port = free_port()
        self.statuses: dict[str, str] = {}
        self.batch_outcomes: dict[str, BatchOutcome] = {}
        self.funded: dict[str, int] = {}
        self.witness: tuple[list[EntryView], TemporalWitness] | None = None
        """The journal, then what Temporal's histories saw written, read before the server
        stops."""
        self.parked_by_spent_funds: list[str] = []
        self.kills_issued = 0
        self.restarts = 0
        self.worker_deaths = 0

    def _worker_env(self, provider: ProviderProcess) -> dict[str, str]:
        return {
            "FUNDSAGA_PROVIDER_URL": provider.url,
            "FUNDSAGA_WEBHOOK_SECRETS": provider.webhook_secrets(),
            "FUNDSAGA_PROVIDER_TIMEOUT": str(PROVIDER_TIMEOUT_SECONDS),
            "FUNDSAGA_WEBHOOK_URL": f"http://127.0.0.1:{self.webhook_port}",
            "TEMPORAL_ADDRESS": self.server.address,
            "FUNDSAGA_TASK_QUEUE": TASK_QUEUE,
            "FUNDSAGA_DATABASE_URL": self.database_url,
            "FUNDSAGA_AUDIT_STORE": self.audit_spec,
            "FUNDSAGA_AUDIT_SIGNING_KEY": str(self.signing_key),
            "FUNDSAGA_FAULTS": self.plan.faults,
            "FUNDSAGA_CHAOS_DB_FAULT_RATE": str(self.plan.config.db_fault_rate),
            "FUNDSAGA_CHAOS_SEED": str(self.plan.config.seed),
            # The workers trust the run's own identity provider: its operators recover sagas.
            "FUNDSAGA_OPERATOR_JWKS": str(self.identity.jwks_path),
            "FUNDSAGA_OPERATOR_ISSUER": DEV_ISSUER,
            "FUNDSAGA_OPERATOR_AUDIENCE": DEV_AUDIENCE,
            **(
                {OUTAGE_FLAG_ENV: str(self.outage.flag)}
                if isinstance(self.outage, InjectedOutage)
                else {}
            ),
        }

    async def run(self) -> ChaosReport:
        started = time.monotonic()
        upgrade_database(self.database_url)
        ledger = Ledger.from_url(self.database_url, signer=self.audit_keys.require_signer())
        open_accounts(ledger)
        provider = start_rail()
        first_day = datetime.now(UTC).date()
        try:
            spends = await self._run_sagas(ledger, provider)
            at_rail = await asyncio.to_thread(self._ask_rail, provider.url)
            books = await asyncio.to_thread(import_statements, ledger, provider, first_day)
        finally:
            provider.stop()
        store = open_audit_store(self.audit_spec, self.audit_keys)
        anchors = AnchorStore(open_audit_store(self.anchor_spec, self.audit_keys))
        witness = (
            None if self.witness is None else LedgerWitness(*self.witness, verified_records(store))
        )
        checks = check_run(
            ledger,
            store,
            anchors,
            self.audit_keys.keyring,
            self.plan,
            self.statuses,
            self.funded,
            self.parked_by_spent_funds,
            at_rail,
            self.batch_outcomes,
            FaultsSeen(self.parked_by_infrastructure, self.terminated, self.recovered),
            witness,
        )
        checks.append(await asyncio.to_thread(reconciled, books))
        store.close_connections()
        anchors.close_connections()
        ledger.close_connections()
        return ChaosReport(
            plan=self.plan,
            checks=checks,
            statuses=self.statuses,
            batch_outcomes=self.batch_outcomes,
            spends=spends,
            parked_by_spent_funds=self.parked_by_spent_funds,
            kills_issued=self.kills_issued,
            worker_deaths=self.worker_deaths,
            restarts=self.restarts,
            db_faults=self._count_db_faults(),
            wall_seconds=time.monotonic() - started,
            outage_seconds=self.outage_seconds,
            outage_kind=self.outage.kind,
            terminated=self.terminated,
        )

    async def _run_sagas(self, ledger: Ledger, provider: ProviderProcess) -> int:
        """Launch every planned saga and follow it to its end, with the dev server, the workers
        and the webhook receiver up meanwhile; the number of payee spends."""
        self.server.start()
        env = self._worker_env(provider)
        receiver = WorkerProcess(
            env, self.workdir / "webhooks.log", webhook_receiver_args(self.webhook_port)
        )
        workers = [
            WorkerProcess(env, self.workdir / f"worker-{n}.log")
            for n in range(self.plan.config.workers)
        ]
        for process in [receiver, *workers]:
            process.start()
        supervisor = asyncio.create_task(self._supervise([*workers, receiver]))
        launched = asyncio.Event()
        spending = asyncio.create_task(spend_until(ledger, self.plan, launched))
        try:
            await asyncio.to_thread(wait_for_port, self.webhook_port)
            client = await _retrying(
                lambda: FundsagaClient.connect(self._settings(), with_ledger=False)
            )
            client.ledger = ledger
            self.funded = await fund_accounts(client, self.identity, ledger, self.plan)
            await self._launch_all(client, workers)
            await self._recover(client)
            journal = ledger.entries()
            seen = await _retrying(lambda: temporal_witness(client.temporal, TASK_QUEUE))
            self.witness = (journal, seen)
        finally:
            launched.set()
            spends = await spending
            supervisor.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await supervisor
            for process in [*workers, receiver]:
                process.stop()
            self.server.stop()
            self.worker_deaths = sum(w.deaths for w in workers)
        return spends

    def _settings(self) -> Settings:
        return Settings.model_validate(
            {
                "TEMPORAL_ADDRESS": self.server.address,
                "FUNDSAGA_TASK_QUEUE": TASK_QUEUE,
                "FUNDSAGA_DATABASE_URL": self.database_url,
            }
        )

    async def _supervise(self, workers: list[WorkerProcess]) -> None:
        while True:
            for worker in workers:
                worker.revive_if_dead()
            await asyncio.sleep(0.5)

    async def _launch_all(self, client: FundsagaClient, workers: list[WorkerProcess]) -> None:
        gate = asyncio.Semaphore(self.plan.config.in_flight)
        kills = dict(self.plan.kill_after)
        restarts = set(self.plan.restart_after)
        tasks = []
        for saga in self.plan.sagas:
            await gate.acquire()
            if saga.index == self.plan.outage_after:
                tasks.append(asyncio.create_task(self._outage_window()))
            if saga.index in kills:
                self._kill(workers[saga.index % len(workers)], kills[saga.index])
            if saga.index in restarts:
                await asyncio.to_thread(self.server.restart)
                self.restarts += 1
            tasks.append(asyncio.create_task(self._one(client, saga, gate)))
        await asyncio.gather(*tasks)

    async def _outage_window(self) -> None:
        """The database out for the plan's outage seconds, then back."""
        began = time.monotonic()
        await asyncio.to_thread(self.outage.begin)
        print(f"chaos: database outage begins ({self.outage.kind})", flush=True)
        try:
            await asyncio.sleep(self.plan.config.outage_seconds)
        finally:
            await asyncio.to_thread(self.outage.end)
            self.outage_seconds = time.monotonic() - began
            print(f"chaos: database back after {self.outage_seconds:.1f} s", flush=True)

    async def _recover(self, client: FundsagaClient) -> None:
        self.recovered = await recover_terminated(client, self.terminated, self.identity)
        self.statuses.update(self.recovered)

    def _kill(self, worker: WorkerProcess, how: str) -> None:
        self.kills_issued += 1
        if how == "signal":
            worker.kill()
        else:
            worker.arm_kill_after_commit()

    async def _one(
        self, client: FundsagaClient, saga: PlannedSaga, gate: asyncio.Semaphore
    ) -> None:
        try:
            starter = _starter(client, self.plan, saga)
            await _retrying(lambda: starter.start(saga.saga_type, saga.body()))
            self.statuses[saga.saga_id] = SagaStatus.RUNNING.value
            handle = client.saga(saga.saga_type, saga.key)
            if saga.index in self.plan.terminate and await terminate_under_way(handle):
                self.terminated.append(saga.saga_id)
                self.statuses[saga.saga_id] = TERMINATED
            elif saga.saga_type == PAYOUT_BATCH:
                await self._follow_batch(client, saga)
            else:
                await self._follow(handle)
        finally:
            gate.release()

    async def _follow(self, handle: SagaHandle) -> SagaOutcome | None:
        status, outcome = await self._final(handle)
        self.statuses[handle.saga_id] = status
        if status == SagaStatus.NEEDS_ATTENTION.value:
            await self._note_parking(handle)
        return outcome

    async def _follow_batch(self, client: FundsagaClient, batch: PlannedSaga) -> None:
        """Follow each item to its end, then the batch; a batch waits for its items, so one
        parked item leaves it running, and the run does not wait for it then."""
        handle = client.saga(batch.saga_type, batch.key)
        items = [client.saga(item.saga_type, item.key) for item in batch_items(batch)]
        await asyncio.gather(*(self._follow_item(handle, item) for item in items))
        ended = [self.statuses.get(item.saga_id) for item in items]
        if SagaStatus.NEEDS_ATTENTION.value in ended or SagaStatus.RUNNING.value in ended:
            return
        outcome = await self._follow(handle)
        if isinstance(outcome, BatchOutcome):
            self.batch_outcomes[handle.saga_id] = outcome

    async def _follow_item(self, batch: SagaHandle, item: SagaHandle) -> None:
        """Wait for the batch to start the item, then follow it; nothing when the batch
        closes without starting it."""
        deadline = time.monotonic() + SAGA_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                await item.describe()
                break
            except SagaNotFoundError:
                with contextlib.suppress(SagaNotFoundError):
                    if await _retrying(batch.is_closed):
                        return
            except (RPCError, RuntimeError):
                pass
            await asyncio.sleep(0.5)
        self.statuses[item.saga_id] = SagaStatus.RUNNING.value
        await self._follow(item)

    async def _final(self, saga: SagaHandle) -> tuple[str, SagaOutcome | None]:
        """The saga's final status, with its outcome once it closed."""
        deadline = time.monotonic() + SAGA_TIMEOUT_S
        while time.monotonic() < deadline:
            try:
                outcome: SagaOutcome = await asyncio.wait_for(saga.outcome(), timeout=15)
                return outcome.status.value, outcome
            except (TimeoutError, RPCError, RuntimeError, QueryFailed):
                with contextlib.suppress(TimeoutError, RPCError, RuntimeError, QueryFailed):
                    view = await asyncio.wait_for(saga.view(), timeout=15)
                    if view.status is SagaStatus.NEEDS_ATTENTION:
                        return view.status.value, None
        return SagaStatus.RUNNING.value, None

    async def _note_parking(self, saga: SagaHandle) -> None:
        with contextlib.suppress(TimeoutError, RPCError, RuntimeError, QueryFailed):
            view = await asyncio.wait_for(saga.view(), timeout=15)
            where = "on its step" if view.parked_on_step else "on a compensation"
            print(f"parked {where}: {saga.saga_id}: {view.failure}", flush=True)
            fault = infrastructure_fault(view)
            if fault is not None:
                self.parked_by_infrastructure[saga.saga_id] = fault
        if await _retrying(lambda: parked_by_spent_funds(saga.workflow, COMPENSATIONS)):
            self.parked_by_spent_funds.append(saga.saga_id)

    def _ask_rail(self, url: str) -> dict[str, RailPayout | None]:
        keys = [rail_key(saga) for saga in self.plan.payouts()]
        return {key: rail_payout(url, key) for key in keys}

    def _count_db_faults(self) -> int:
        return sum(
            log.read_text(errors="replace").count("chaos: injected database fault")
            for log in self.workdir.glob("worker-*.log")
        )


def _new_key(path: Path) -> SigningKey:
    """The run's signing key, in a file its worker processes read, as production workers do."""
    if path.exists():
        return SigningKey.read(path)
    key = SigningKey.generate()
    key.write(path)
    return key


def _starter(client: FundsagaClient, plan: ChaosPlan, saga: PlannedSaga) -> FundsagaClient:
    """The client that starts `saga`: one without the ledger (so without the account checks,
    as another SDK starts it) when the checks would refuse it, so its step refuses it under
    chaos instead."""
    request = client.registry.parse_request(saga.saga_type, saga.body())
    if not plan.refused_up_front(request):
        return client
    bypassing = copy.copy(client)
    bypassing.ledger = None
    return bypassing
