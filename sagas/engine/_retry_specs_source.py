"""Where a saga's retry specs come from when it starts, and how that choice stays in its history.

A worker with a retry-specs file (FUNDSAGA_RETRY_SPECS) records a patch marker and answers
through the local activity `fundsaga.retry_specs`: its result is recorded, so a replay reads
the specs the saga started with whatever the file says by then. A worker without one has
nothing to ask: the saga runs with its code's specs and records nothing, so the default path
costs no history event. On replay the marker, not the replaying worker's configuration,
decides: a history without it ran on its code's specs.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from temporalio import workflow
from temporalio.worker import (
    ExecuteWorkflowInput,
    Interceptor,
    WorkflowInboundInterceptor,
    WorkflowInterceptorClassInput,
)

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
