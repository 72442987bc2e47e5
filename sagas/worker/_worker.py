"""The worker: every saga workflow and activity, on one task queue."""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta
from typing import Any

from pydantic import JsonValue
from temporalio.client import Client
from temporalio.runtime import Runtime
from temporalio.worker import Worker, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxRestrictions

from activities.accounts import AccountActivities
from activities.audit import AuditActivities
from activities.operator_identity import OperatorIdentityActivity
from activities.reconcile import ReconcileActivities
from activities.recovery import RecoveryActivities
from activities.retry_specs import RetrySpecsActivity
from activities.statements import StatementActivities
from sagas.audit import AnchoredAuditStore, AuditStore
from sagas.codec import EncryptingCodec, RecordSealer
from sagas.engine import (
    FAULTS_ENV_VAR,
    FaultPlan,
    LedgerReceipts,
    OperatorTokenCheck,
    ReadableCompensations,
    RetrySpecsSource,
    configured_specs,
    export_counters_at_zero,
    read_retry_specs,
    register_recoverable,
    trust_operators,
)
from sagas.ledger import Ledger, spend_operator_token
from sagas.reconcile import StatementRules
from sagas.registry import SagaRegistry, WorkerContext, built_in_registry
from sagas.worker._running_activities import RunningActivities, steps_by_activity
from sagas.worker._sandbox import CompiledSandboxRunner
from workflows import (
    AuditAnchorWorkflow,
    BreakResolutionWorkflow,
    FundingWorkflow,
    OperatorActionWorkflow,
    SagaRecoveryWorkflow,
    ScheduleAuditWorkflow,
    ScheduledSagaWorkflow,
    StatementActionWorkflow,
)

log = logging.getLogger("fundsaga.worker")

SQLITE_ACTIVITY_SLOTS = 8
"""SQLite has one writer: more threads than this only queue on its lock and the GIL."""
ACTIVITY_SLOTS = 32
GRACEFUL_SHUTDOWN = timedelta(seconds=5)
"""How long a stopping worker lets its running steps finish before it cancels them
(FUNDSAGA_SHUTDOWN_GRACE_SECONDS): a step cut off is retried by another worker, and its effect
key makes the retry take effect once."""


def saga_workflow_runner(*workflow_modules: str) -> CompiledSandboxRunner:
    """The SDK's workflow sandbox, with the `workflows` package (and `workflow_modules`) passed
    through.

    The workflow modules hold no state, so re-importing them for every saga run (the sandbox's
    default) buys nothing and costs 1-5 ms of worker CPU per saga. The engine is passed through
    too: its update validators reach the identity provider's keys this worker holds in memory
    (`trust_operators`), which a fresh copy inside the sandbox would not hold. The sandbox's glue
    code is compiled once per process (CompiledSandboxRunner), not once per call; build_worker
    makes it skip the sandbox for the contexts its client's data converter does not read.
    """
    restrictions = SandboxRestrictions.default.with_passthrough_modules(
        "workflows", "sagas.engine", *workflow_modules
    )
    return CompiledSandboxRunner(restrictions=restrictions)


def build_worker(
    client: Client,
    task_queue: str,
    ledger: Ledger,
    audit_store: AuditStore,
    faults: FaultPlan | None = None,
    *,
    registry: SagaRegistry | None = None,
    workflows: Sequence[type] | None = None,
    max_concurrent_activities: int | None = None,
    max_concurrent_workflow_tasks: int | None = None,
    max_cached_workflows: int = 1000,
    workflow_runner: WorkflowRunner | None = None,
    retry_specs: str = "",
    operators: OperatorTokenCheck | None = None,
    graceful_shutdown: timedelta = GRACEFUL_SHUTDOWN,
    running_activities: RunningActivities | None = None,
    statement_rules: StatementRules | None = None,
) -> Worker:
    """A worker for every registered saga type (the built-in ones by default): its workflows,
    the activities of its steps, and the audit activity.

    Refuses to build (RegistrationError) when a step names an activity nothing registers.
    The counters the alert rules read are exported at 0 for the registered types' labels from
    now on (export_counters_at_zero), so Prometheus sees their first event as an increase.
    `workflows` replaces the registry's workflow classes (tests register altered copies).
    `max_concurrent_activities` is also the size of the thread pool the sync step activities
    (and local steps) run on; None is 8 on a SQLite ledger, 32 on PostgreSQL (pass more for
    slow external steps). None for the workflow task slots keeps the SDK's default, None for
    the runner is `saga_workflow_runner()` with the registry's workflow modules passed through.
    `retry_specs` is the configuration file of retry specs (FUNDSAGA_RETRY_SPECS), checked now
    (InvalidRequestError naming the bad field) and read once: a changed file applies to the sagas
    of workers built after the change. `operators` is the identity provider whose access tokens
    prove who an operator action is by (its keys held in memory, `held=True`, so the updates'
    validators check tokens with no I/O); None refuses every operator action.
    `graceful_shutdown` is how long the worker's shutdown lets running activities finish before
    it cancels them; `running_activities`, when given, keeps the activities in hand, named by
    the step they run (what a stop that runs out of time logs as left). `statement_rules` are
    the deployment's matching policy and statement limits (`StatementRules.of(settings)`);
    None: the defaults.
    """
    registry = registry or built_in_registry()
    slots = max_concurrent_activities or activity_slots_for(ledger)
    configured = read_retry_specs(retry_specs)
    configured_specs(configured, registry.definitions())
    faults = faults or FaultPlan()
    if faults:
        log.warning(
            "FAULT INJECTION IS ON (%s): %s",
            FAULTS_ENV_VAR,
            "; ".join(rule.describe() for rule in faults.rules),
        )
        for rule in faults.rules:
            if not registry.has_step(rule.saga_type, rule.step):
                log.warning(
                    "%s rule %s matches no step of a registered saga type: it never fires",
                    FAULTS_ENV_VAR,
                    rule.describe(),
                )
    chosen = list(workflows) if workflows is not None else registry.workflows()
    modules = sorted({cls.__module__ for cls in chosen})
    context = WorkerContext(ledger=ledger, faults=faults)
    register_recoverable(task_queue, registry.definitions())
    trust_operators(task_queue, operators)
    anchors = audit_store.anchors if isinstance(audit_store, AnchoredAuditStore) else None
    audit = AuditActivities(audit_store, anchors, ledger, _record_sealer(client))
    activities: list[Callable[..., Any]] = [
        *registry.activities(context),
        audit.record,
        audit.anchor,
        RetrySpecsActivity(configured).resolve,
        OperatorIdentityActivity(
            operators, functools.partial(spend_operator_token, ledger.engine)
        ).verify,
        RecoveryActivities(ledger).load,
        *_account_activities(ledger),
        *StatementActivities(
            ledger, registry.definitions().values(), statement_rules or StatementRules()
        ).all(),
    ]
    running = running_activities or RunningActivities()
    running.name_steps(steps_by_activity(registry.definitions()))
    runtime = client.service_client.config.runtime or Runtime.default()
    export_counters_at_zero(
        runtime.metric_meter,
        client.namespace,
        task_queue,
        registry.definitions_by_workflow_type(),
    )
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[
            *chosen,
            AuditAnchorWorkflow,
            ScheduledSagaWorkflow,
            ScheduleAuditWorkflow,
            OperatorActionWorkflow,
            FundingWorkflow,
            BreakResolutionWorkflow,
            StatementActionWorkflow,
            SagaRecoveryWorkflow,
        ],
        activities=activities,
        activity_executor=ThreadPoolExecutor(max_workers=slots),
        interceptors=[
            running,
            RetrySpecsSource(configured=bool(retry_specs)),
            LedgerReceipts(),
            ReadableCompensations(),
        ],
        max_concurrent_activities=slots,
        max_concurrent_workflow_tasks=max_concurrent_workflow_tasks,
        max_cached_workflows=max_cached_workflows,
        graceful_shutdown_timeout=graceful_shutdown,
        workflow_runner=_for_converter(workflow_runner or saga_workflow_runner(*modules), client),
    )


def _for_converter(runner: WorkflowRunner, client: Client) -> WorkflowRunner:
    """The saga runner skips the sandbox to look up contexts the client's converter ignores."""
    if isinstance(runner, CompiledSandboxRunner):
        return runner.for_converter(client.data_converter)
    return runner


def _account_activities(ledger: Ledger) -> list[Callable[..., Any]]:
    accounts = AccountActivities(ledger)
    reconcile = ReconcileActivities(ledger)
    return [
        accounts.set_status,
        accounts.open_with_limit,
        accounts.fund,
        reconcile.adjustment_bound,
        reconcile.resolve_break,
    ]


def activity_slots_for(ledger: Ledger) -> int:
    """build_worker's activity slots and threads when none are given, by the ledger's database."""
    return SQLITE_ACTIVITY_SLOTS if ledger.engine.dialect.name == "sqlite" else ACTIVITY_SLOTS


def _record_sealer(client: Client) -> Callable[[dict[str, JsonValue]], dict[str, JsonValue]] | None:
    """With payload keys, audit payloads are sealed under them: no plain-text copy of a request."""
    codec = client.data_converter.payload_codec
    return RecordSealer(codec.keys).seal if isinstance(codec, EncryptingCodec) else None
