"""The retry specs a saga runs with: the code's, overlaid by configuration when the saga starts.

The configuration (`FUNDSAGA_RETRY_SPECS`, a JSON or TOML file, read once when a worker is built)
maps saga type → step → phase (action, compensation) → retry class (temporary, instant,
infrastructure) → field, plus `jitter` per phase:

    {"transfer": {"credit": {"action": {"instant": {"max_retries": 2}, "jitter": "full"}}}}

Fields: `first_interval` and `max_interval` (durations: 500ms, 10s, 5m, 2h, or seconds),
`multiplier` (a decimal string or number), `max_retries` (an integer). A field not given keeps
the code's value. Errors name the field's path, e.g.
`retry_specs.transfer.credit.action.instant.multiplier`.

Where a saga's specs come from stays in its history. A worker with a retry-specs file records a
patch marker and answers through the local activity `fundsaga.retry_specs`: its result is
recorded, so a replay reads the specs the saga started with whatever the file says by then. A
worker without one has nothing to ask: the saga runs with its code's specs and records nothing,
so the default path costs no history event. On replay the marker, not the replaying worker's
configuration, decides: a history without it ran on its code's specs."""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel
from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.worker import (
    ExecuteWorkflowInput,
    Interceptor,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
)

from sagas.engine._duration import parse_duration
from sagas.engine._retry import DEFAULT_INSTANT, InfrastructureWait, Jitter, RetrySpec
from sagas.engine._retry_plan import spec_advice
from sagas.engine._saga_retry_specs import SagaRetrySpecs, StepRetrySpecs
from sagas.engine._status import Phase
from sagas.foundations import InvalidRequestError, RetryClass, loads_one_reading

if TYPE_CHECKING:
    from sagas.engine._definition import SagaDefinition

log = logging.getLogger("fundsaga.retry_specs")

RETRY_SPECS_ACTIVITY = "fundsaga.retry_specs"
"""The local activity a saga runs first on a worker with a retry-specs file: its configured specs
for the saga's steps."""
RETRY_SPECS_TIMEOUT = timedelta(seconds=10)
RETRY_SPECS_RETRY = RetryPolicy(
    initial_interval=timedelta(seconds=1),
    backoff_coefficient=2.0,
    maximum_interval=timedelta(minutes=1),
    maximum_attempts=0,
)
"""Unlimited: the activity only overlays what its worker read, and a worker that cannot answer
(stopping, overloaded) holds new sagas until one can."""
ROOT = "retry_specs"
_CLASSES = (
    RetryClass.TEMPORARY.value,
    RetryClass.INSTANT.value,
    RetryClass.INFRASTRUCTURE.value,
)
_FIELDS = ("first_interval", "multiplier", "max_retries", "max_interval")


class RetrySpecsCall(BaseModel):
    """What the runtime asks the worker when a saga starts: its type and the code's specs."""

    saga_type: str
    defaults: SagaRetrySpecs


def code_specs(definition: SagaDefinition[Any, Any]) -> SagaRetrySpecs:
    return SagaRetrySpecs(
        steps={
            step.name: StepRetrySpecs(
                action=step.action_retry, compensation=step.compensation_retry
            )
            for step in definition.steps
        }
    )


def overlay(
    defaults: SagaRetrySpecs, saga_type: str, configured: Mapping[str, Any]
) -> SagaRetrySpecs:
    """`defaults` with the configuration's entries for `saga_type` applied; an unknown step,
    phase, class or field is refused by its path."""
    entries = _mapping(configured.get(saga_type, {}), f"{ROOT}.{saga_type}")
    steps = dict(defaults.steps)
    for step, phases in entries.items():
        path = f"{ROOT}.{saga_type}.{step}"
        if step not in steps:
            known = ", ".join(steps)
            raise InvalidRequestError(path, f"saga type {saga_type} has no such step ({known})")
        steps[step] = _step(steps[step], _mapping(phases, path), path)
    return SagaRetrySpecs(steps=steps)


def read_retry_specs(path: str) -> Mapping[str, Any]:
    """The configuration file's entries (JSON, or TOML for a `.toml` name); none for no path."""
    if not path:
        return {}
    try:
        text = Path(path).read_text(encoding="utf-8")
        loaded: object = tomllib.loads(text) if path.endswith(".toml") else loads_one_reading(text)
    except InvalidRequestError as err:
        raise InvalidRequestError(
            "FUNDSAGA_RETRY_SPECS", f"{path}: {err.field} {err.problem}"
        ) from None
    except (OSError, ValueError) as err:
        raise InvalidRequestError("FUNDSAGA_RETRY_SPECS", f"cannot read {path}: {err}") from None
    return _mapping(loaded, ROOT)


def configured_specs(
    configured: Mapping[str, Any], definitions: Mapping[str, SagaDefinition[Any, Any]]
) -> dict[str, SagaRetrySpecs]:
    """Every saga type's specs as a saga started now would run with them, `configured` (what
    `read_retry_specs` read) checked against the types in `definitions`: its errors name their
    field, and the practice's advice on a configured type is logged as warnings."""
    check_saga_types(configured, list(definitions))
    specs = {
        name: overlay(code_specs(definition), name, configured)
        for name, definition in definitions.items()
    }
    for name in configured:
        for step, phases in specs[name].steps.items():
            for phase in Phase:
                where = f"{ROOT}.{name}.{step}.{phase.value}"
                for advice in spec_advice(phases.of(phase), where=where):
                    log.warning("retry spec: %s", advice)
    return specs


def check_saga_types(configured: Mapping[str, Any], known: list[str]) -> None:
    for saga_type in configured:
        if saga_type not in known:
            raise InvalidRequestError(
                f"{ROOT}.{saga_type}", f"no such saga type (registered: {', '.join(known)})"
            )


def _step(specs: StepRetrySpecs, phases: Mapping[str, Any], path: str) -> StepRetrySpecs:
    changed = {}
    for name, entry in phases.items():
        if name not in (Phase.ACTION.value, Phase.COMPENSATION.value):
            raise InvalidRequestError(f"{path}.{name}", "must be action or compensation")
        phase = Phase(name)
        changed[name] = _phase(specs.of(phase), _mapping(entry, f"{path}.{name}"), f"{path}.{name}")
    return specs.model_copy(update=changed)


def _phase(spec: RetrySpec, entry: Mapping[str, Any], path: str) -> RetrySpec:
    for name in entry:
        if name not in (*_CLASSES, "jitter"):
            problem = f"must be one of {', '.join(_CLASSES)} or jitter"
            if name == RetryClass.PERMANENT.value:
                problem = "permanent faults are never retried: it has no spec"
            raise InvalidRequestError(f"{path}.{name}", problem)
    if "jitter" in entry:
        spec = replace(spec, jitter=_jitter(entry["jitter"], f"{path}.jitter"))
    if RetryClass.INFRASTRUCTURE.value in entry:
        where = f"{path}.infrastructure"
        wait = _infrastructure(spec.infrastructure_wait, entry[RetryClass.INFRASTRUCTURE], where)
        spec = replace(spec, infrastructure=wait)
    instant = spec.instant or DEFAULT_INSTANT
    if RetryClass.INSTANT.value in entry:
        instant = _class(instant, entry[RetryClass.INSTANT.value], f"{path}.instant")
    temporary = replace(spec, instant=None)
    if RetryClass.TEMPORARY.value in entry:
        temporary = _class(temporary, entry[RetryClass.TEMPORARY.value], f"{path}.temporary")
    return replace(
        temporary, instant=instant if RetryClass.INSTANT.value in entry else spec.instant
    )


def _class(spec: RetrySpec, entry: object, path: str) -> RetrySpec:
    fields = _mapping(entry, path)
    values: dict[str, Any] = {}
    for name, value in fields.items():
        if name not in _FIELDS:
            raise InvalidRequestError(f"{path}.{name}", f"must be one of {', '.join(_FIELDS)}")
        values[name] = _value(name, value, f"{path}.{name}")
    try:
        return replace(spec, **values)
    except InvalidRequestError as err:
        raise InvalidRequestError(f"{path}.{err.field}", err.problem) from None


def _infrastructure(wait: InfrastructureWait, entry: object, path: str) -> InfrastructureWait:
    """The wait on the infrastructure with the entry's fields; max_retries is a positive
    integer with no upper bound here (none: without limit)."""
    values: dict[str, Any] = {}
    for name, value in _mapping(entry, path).items():
        if name not in _FIELDS:
            raise InvalidRequestError(f"{path}.{name}", f"must be one of {', '.join(_FIELDS)}")
        if name == "max_retries":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidRequestError(f"{path}.{name}", "must be a positive integer")
            values[name] = value
        else:
            values[name] = _value(name, value, f"{path}.{name}")
    try:
        return replace(wait, **values)
    except InvalidRequestError as err:
        raise InvalidRequestError(f"{path}.{err.field}", err.problem) from None


def _value(name: str, value: object, path: str) -> object:
    if name in ("first_interval", "max_interval"):
        return parse_duration(value, path)
    if name == "multiplier":
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise InvalidRequestError(path, "must be a number in [1.0, 8.0]")
        try:
            return Decimal(str(value))
        except ArithmeticError:
            raise InvalidRequestError(path, f"is not a number: {value!r}") from None
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidRequestError(path, "must be an integer in [1, 16]")
    return value


def _jitter(value: object, path: str) -> Jitter:
    if value not in {j.value for j in Jitter}:
        raise InvalidRequestError(path, "must be none or full")
    return Jitter(str(value))


def _mapping(value: object, path: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidRequestError(path, "must be a table (a JSON object)")
    return value


WORKER_SPECS_PATCH = "fundsaga.worker-retry-specs"
"""The marker of a saga that started on a worker with a retry-specs file and asked it."""

_CONFIGURED: ContextVar[bool] = ContextVar("fundsaga_retry_specs_configured", default=False)
"""Whether the worker running this saga has a retry-specs file. A worker built without
`RetrySpecsSource` is taken to have none: it needs no `fundsaga.retry_specs` activity."""


class RetrySpecsSource(Interceptor):
    """Tells the sagas of one worker whether it has a retry-specs file."""

    def __init__(self, *, configured: bool) -> None:
        self.configured = configured

    def workflow_interceptor_class(
        self, input: WorkflowInterceptorClassInput
    ) -> type[WorkflowInboundInterceptor]:
        return _WithRetrySpecsFile if self.configured else _WithoutRetrySpecsFile


class _WithRetrySpecsFile(WorkflowInboundInterceptor):
    configured = True

    async def execute_workflow(self, input: ExecuteWorkflowInput) -> Any:
        _CONFIGURED.set(self.configured)
        return await super().execute_workflow(input)


class _WithoutRetrySpecsFile(_WithRetrySpecsFile):
    configured = False


def runs_on_code_specs() -> bool:
    """Whether this saga runs with its code's specs without asking the worker.

    Decided once, on the saga's first workflow task, by the worker's configuration; only the
    asking path is recorded (the marker, then the local activity's result). A replay, on any
    worker, asks exactly when the history holds the marker. Only called while the saga starts.
    """
    if not workflow.unsafe.is_replaying() and not _CONFIGURED.get():
        return True
    return not workflow.patched(WORKER_SPECS_PATCH)
