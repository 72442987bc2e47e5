"""`fundsaga retry-plan`: a retry spec laid out, retry by retry, before any saga runs it."""

from __future__ import annotations

import sys
from dataclasses import replace
from datetime import timedelta
from decimal import Decimal, InvalidOperation
from typing import Annotated

import typer

from sagas.cli._invocation import Invocation
from sagas.cli._options import registered_types
from sagas.cli._output import Output, OutputFormat, Shown, emit
from sagas.engine import (
    PRESETS,
    Jitter,
    Phase,
    Preset,
    RetrySpec,
    class_spec,
    configured_specs,
    describe_infrastructure_wait,
    format_duration,
    parse_duration,
    read_retry_specs,
    retry_plan,
    spec_advice,
)
from sagas.foundations import InvalidRequestError, RetryClass, Settings
from sagas.registry import load_registry

_OPTION_OF_FIELD = {
    "first_interval": "--first",
    "multiplier": "--multiplier",
    "max_retries": "--max-retries",
    "max_interval": "--max-interval",
}
DEFAULT_DEADLINE_TEXT = "24h"
_RETRYING = [RetryClass.TEMPORARY.value, RetryClass.INSTANT.value]


def retry_plan_command(
    ctx: typer.Context,
    first: Annotated[
        str | None, typer.Option("--first", help="F: the wait before the first retry, e.g. 10s.")
    ] = None,
    multiplier: Annotated[
        str | None, typer.Option("--multiplier", help="M: in [1.0, 8.0], one decimal at most.")
    ] = None,
    max_retries: Annotated[
        int | None, typer.Option("--max-retries", help="C: retries after the first attempt.")
    ] = None,
    max_interval: Annotated[
        str | None, typer.Option("--max-interval", help="Cap on any single wait, e.g. 5m.")
    ] = None,
    jitter: Annotated[
        Jitter | None, typer.Option("--jitter", help="full: each wait drawn in [0, delay].")
    ] = None,
    key: Annotated[
        str, typer.Option("--key", help="The effect key full jitter is drawn for.")
    ] = "",
    preset: Annotated[
        Preset | None, typer.Option("--preset", help="Start from the practice's preset.")
    ] = None,
    saga: Annotated[
        str | None,
        typer.Option(
            "--saga",
            help="Start from a step's configured spec: its saga type.",
            autocompletion=registered_types,
        ),
    ] = None,
    step: Annotated[str | None, typer.Option("--step", help="The step, with --saga.")] = None,
    phase: Annotated[Phase, typer.Option("--phase", help="With --saga.")] = Phase.ACTION,
    retry_class: Annotated[
        str, typer.Option("--class", help="With --saga: temporary or instant.")
    ] = RetryClass.TEMPORARY.value,
    deadline: Annotated[
        str, typer.Option("--deadline", help="The saga's deadline the waits are checked against.")
    ] = DEFAULT_DEADLINE_TEXT,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Each retry's wait and the time spent so far, for F, M, C (and a cap), a preset or a
    step's configured spec; warns where the practice advises against the spec."""
    base = _base(ctx, preset, saga, step, phase, retry_class)
    spec = _spec(base, first, multiplier, max_retries, max_interval, jitter)
    if spec.jitter is Jitter.FULL and not key:
        raise InvalidRequestError("--key", "full jitter is drawn for an effect key: give one")
    limit = parse_duration(deadline, "--deadline")
    if limit <= timedelta(0):
        raise InvalidRequestError("--deadline", "must be greater than 0 seconds")
    for line in spec_advice(spec, deadline=limit, where="retry-plan"):
        print(f"warning: {line}", file=sys.stderr)
    emit(_shown(spec, key), output)


def _base(
    ctx: typer.Context,
    preset: Preset | None,
    saga: str | None,
    step: str | None,
    phase: Phase,
    retry_class: str,
) -> RetrySpec | None:
    if preset is not None and saga is not None:
        raise InvalidRequestError("--preset", "give a preset or --saga/--step, not both")
    if preset is not None:
        return PRESETS[preset]
    if saga is None and step is None:
        return None
    if saga is None or step is None:
        raise InvalidRequestError("--saga" if saga is None else "--step", "give --saga with --step")
    if retry_class not in _RETRYING:
        raise InvalidRequestError("--class", f"must be one of {', '.join(_RETRYING)}")
    spec = _configured_spec(Invocation.of(ctx).settings, saga, step, phase)
    drawn = class_spec(spec, RetryClass(retry_class))
    return None if drawn is None else replace(drawn, infrastructure=spec.infrastructure)


def _configured_spec(settings: Settings, saga_type: str, step: str, phase: Phase) -> RetrySpec:
    registry = load_registry(settings.saga_module_names)
    registry.get(saga_type)
    configured = read_retry_specs(settings.retry_specs)
    specs = configured_specs(configured, registry.definitions())[saga_type]
    if step not in specs.steps:
        known = ", ".join(specs.steps)
        raise InvalidRequestError("--step", f"saga type {saga_type} has no step {step!r} ({known})")
    return specs.of(step, phase)


def _spec(
    base: RetrySpec | None,
    first: str | None,
    multiplier: str | None,
    max_retries: int | None,
    max_interval: str | None,
    jitter: Jitter | None,
) -> RetrySpec:
    if base is None and (first is None or multiplier is None or max_retries is None):
        raise InvalidRequestError(
            "--first", "give --first, --multiplier and --max-retries, a --preset, or --saga/--step"
        )
    fields: dict[str, object] = {}
    if first is not None:
        fields["first_interval"] = parse_duration(first, "--first")
    if multiplier is not None:
        fields["multiplier"] = _decimal(multiplier)
    if max_retries is not None:
        fields["max_retries"] = max_retries
    if max_interval is not None:
        fields["max_interval"] = parse_duration(max_interval, "--max-interval")
    if jitter is not None:
        fields["jitter"] = jitter
    try:
        if base is None:
            return RetrySpec(**fields)  # type: ignore[arg-type]
        return replace(base, **fields)  # type: ignore[arg-type]
    except InvalidRequestError as err:
        raise InvalidRequestError(_OPTION_OF_FIELD.get(err.field, err.field), err.problem) from None


def _decimal(text: str) -> Decimal:
    try:
        value = Decimal(text)
    except InvalidOperation:
        raise InvalidRequestError("--multiplier", f"is not a number: {text!r}") from None
    return value


def _shown(spec: RetrySpec, key: str) -> Shown:
    plan = retry_plan(spec, key=key)
    cap = format_duration(spec.max_interval) if spec.max_interval else "none"
    line = (
        f"F={format_duration(spec.first_interval)} M={spec.multiplier} C={spec.max_retries} "
        f"max interval {cap}, jitter {spec.jitter.value}: {spec.maximum_attempts} attempts, "
        f"{format_duration(plan[-1].cumulative)} of waits in all"
    )
    wait = spec.infrastructure_wait
    data = {
        "first_interval_ms": _ms(spec.first_interval),
        "multiplier": str(spec.multiplier),
        "max_retries": spec.max_retries,
        "max_interval_ms": _ms(spec.max_interval) if spec.max_interval else None,
        "jitter": spec.jitter.value,
        "key": key or None,
        "total_ms": _ms(plan[-1].cumulative),
        "infrastructure": {
            "first_interval_ms": _ms(wait.first_interval),
            "multiplier": str(wait.multiplier),
            "max_interval_ms": _ms(wait.max_interval),
            "max_retries": wait.max_retries,
        },
        "retries": [
            {
                "retry": p.retry,
                "delay_ms": _ms(p.delay),
                "cumulative_ms": _ms(p.cumulative),
            }
            for p in plan
        ],
    }
    rows = [[p.retry, format_duration(p.delay), format_duration(p.cumulative)] for p in plan]
    lines = [line, describe_infrastructure_wait(wait)]
    return Shown(data, lines=lines, columns=["retry", "wait", "cumulative"], rows=rows)


def _ms(value: timedelta) -> int:
    return round(value.total_seconds() * 1000)
