"""The configured retry specs (FUNDSAGA_RETRY_SPECS) checked against the registered saga types."""

from __future__ import annotations

import logging

from sagas.engine import (
    Phase,
    RetrySpec,
    SagaRetrySpecs,
    check_saga_types,
    code_specs,
    overlay,
    read_retry_specs,
    spec_advice,
)
from sagas.foundations import InvalidRequestError, Settings
from sagas.registry._registry import SagaRegistry, load_registry

log = logging.getLogger("fundsaga.retry_specs")


def configured_specs(path: str, registry: SagaRegistry) -> dict[str, SagaRetrySpecs]:
    """Every registered type's specs as a saga started now would run with them; the file's
    errors name their field, and the practice's advice is logged as warnings."""
    configured = read_retry_specs(path)
    check_saga_types(configured, registry.names())
    specs = {
        saga_type.name: overlay(code_specs(saga_type.definition), saga_type.name, configured)
        for saga_type in registry
    }
    for saga_type, saga_specs in specs.items():
        if saga_type in configured:
            for advice in _advice(saga_type, saga_specs):
                log.warning("retry spec: %s", advice)
    return specs


def configured_spec(settings: Settings, saga_type: str, step: str, phase: Phase) -> RetrySpec:
    """One step's spec as configured, for `retry-plan --saga --step`."""
    registry = load_registry(settings.saga_module_names)
    registry.get(saga_type)
    specs = configured_specs(settings.retry_specs, registry)[saga_type]
    if step not in specs.steps:
        known = ", ".join(specs.steps)
        raise InvalidRequestError("--step", f"saga type {saga_type} has no step {step!r} ({known})")
    return specs.of(step, phase)


def _advice(saga_type: str, specs: SagaRetrySpecs) -> list[str]:
    return [
        line
        for step, phases in specs.steps.items()
        for phase in Phase
        for line in spec_advice(
            phases.of(phase), where=f"retry_specs.{saga_type}.{step}.{phase.value}"
        )
    ]
