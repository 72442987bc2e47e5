"""The SDK's workflow sandbox, with its glue code compiled once per process instead of per call.

The sandbox runs a two-line snippet through `exec` for every activation and, through the payload
visitor, for every payload sequence of it (to find its serialization context); `exec` of a string
compiles it each time, about 20 µs, a few ms of worker CPU per saga. The same snippets compiled
once run the same code in the same restricted namespace: the sandbox's checks are unchanged.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import CodeType
from typing import Any

from temporalio.worker import WorkflowInstance, WorkflowInstanceDetails
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner
from temporalio.worker.workflow_sandbox._runner import _Instance

_SNIPPETS = 256
"""More than the distinct snippets a worker runs: a few per workflow class, a few shared."""


@functools.lru_cache(maxsize=_SNIPPETS)
def _compiled(source: str) -> CodeType:
    return compile(source, "<string>", "exec")


class _CompiledOnceInstance(_Instance):
    def _run_code(self, code: str | CodeType, **extra_globals: Any) -> None:
        super()._run_code(_compiled(code) if isinstance(code, str) else code, **extra_globals)  # type: ignore[arg-type]


@dataclass(frozen=True)
class CompiledSandboxRunner(SandboxedWorkflowRunner):
    """SandboxedWorkflowRunner whose instances compile each glue snippet once."""

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        return _CompiledOnceInstance(det, self.runner_class, self.restrictions)
