"""The activity a saga runs first on a worker with a retry-specs file: the specs set there."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from temporalio import activity

from sagas.engine import RETRY_SPECS_ACTIVITY, RetrySpecsCall, SagaRetrySpecs, overlay


class RetrySpecsActivity:
    """Answers each saga that starts with `configured`: what the worker read from its
    FUNDSAGA_RETRY_SPECS file when it was built (a changed file applies to workers built after)."""

    def __init__(self, configured: Mapping[str, Any]) -> None:
        self.configured = configured

    @activity.defn(name=RETRY_SPECS_ACTIVITY)
    def resolve(self, call: RetrySpecsCall) -> SagaRetrySpecs:
        return overlay(call.defaults, call.saga_type, self.configured)
