"""The retry specs one saga runs with, per step and phase: fixed when it starts."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from sagas.engine._retry import RetrySpec


class StepRetrySpecs(BaseModel):
    """The specs of one step's two phases."""

    model_config = ConfigDict(frozen=True)

    action: RetrySpec
    compensation: RetrySpec

    def of(self, phase: str) -> RetrySpec:
        """The spec of `phase` (a Phase: action or compensation)."""
        return self.compensation if phase == "compensation" else self.action


class SagaRetrySpecs(BaseModel):
    """Every step's specs, fixed for a saga when it starts."""

    model_config = ConfigDict(frozen=True)

    steps: dict[str, StepRetrySpecs]

    def of(self, step: str, phase: str) -> RetrySpec:
        return self.steps[step].of(phase)
