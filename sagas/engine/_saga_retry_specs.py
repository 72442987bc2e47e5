"""The retry specs a saga fixes when it starts: one per step and phase.

Apart from `_retry_specs` (which reads them from a file and needs the saga's definition) so the
snapshot can carry them without depending on the definition.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from sagas.engine._retry import RetrySpec
from sagas.engine._status import Phase


class StepRetrySpecs(BaseModel):
    """The specs of one step's two phases."""

    model_config = ConfigDict(frozen=True)

    action: RetrySpec
    compensation: RetrySpec

    def of(self, phase: Phase) -> RetrySpec:
        """The spec of `phase`."""
        return self.compensation if phase is Phase.COMPENSATION else self.action


class SagaRetrySpecs(BaseModel):
    """Every step's specs, fixed for a saga when it starts."""

    model_config = ConfigDict(frozen=True)

    steps: dict[str, StepRetrySpecs]

    def of(self, step: str, phase: Phase) -> RetrySpec:
        return self.steps[step].of(phase)
