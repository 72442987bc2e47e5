"""The activity a saga runs first on a worker with a retry-specs file: the specs set there."""

from __future__ import annotations

from temporalio import activity

from sagas.engine import (
    RETRY_SPECS_ACTIVITY,
    RetrySpecsCall,
    SagaRetrySpecs,
    overlay,
    read_retry_specs,
)


class RetrySpecsActivity:
    """Reads `path` (FUNDSAGA_RETRY_SPECS) for each saga that starts, so a change of the file
    applies to sagas started afterwards."""

    def __init__(self, path: str) -> None:
        self.path = path

    @activity.defn(name=RETRY_SPECS_ACTIVITY)
    def resolve(self, call: RetrySpecsCall) -> SagaRetrySpecs:
        return overlay(call.defaults, call.saga_type, read_retry_specs(self.path))
