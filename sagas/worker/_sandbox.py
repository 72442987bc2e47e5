"""The SDK's workflow sandbox, with its glue code compiled once per process instead of per call.

The sandbox runs a two-line snippet through `exec` for every activation and, through the payload
visitor, for every payload sequence of it (to find its serialization context); `exec` of a string
compiles it each time, about 20 µs, a few ms of worker CPU per saga. The same snippets compiled
once run the same code in the same restricted namespace: the sandbox's checks are unchanged.

A worker whose data converter takes no serialization context (none of its converters, nor its
codec, reads one, and it stores no payload externally) gets the same converter whatever context
a payload's command has: for it the runner answers the SDK's lookups of a command's contexts
without entering the sandbox (`context_free`). The payload visitor asks three times per payload
on the way in and four on the way out; each lookup in the sandbox costs about 50 µs of the
worker's CPU, a summary or a step's call as much as any other payload.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from types import CodeType
from typing import Any

from temporalio.converter import (
    ActivitySerializationContext,
    DataConverter,
    SerializationContext,
    StorageDriverStoreContext,
    WorkflowSerializationContext,
)
from temporalio.worker import WorkflowInstance, WorkflowInstanceDetails, WorkflowRunner
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions
from temporalio.worker.workflow_sandbox._runner import _Instance

_SNIPPETS = 256
"""More than the distinct snippets a worker runs: a few per workflow class, a few shared."""

_PROBES: tuple[SerializationContext, ...] = (
    WorkflowSerializationContext(namespace="probe", workflow_id="probe"),
    ActivitySerializationContext(
        namespace="probe",
        workflow_id="probe",
        workflow_type="probe",
        activity_id="probe",
        activity_type="probe",
        activity_task_queue="probe",
        is_local=False,
    ),
)


def takes_no_context(converter: DataConverter) -> bool:
    """Whether `converter` is itself whatever serialization or store context it is given."""
    if converter.external_storage is not None:
        return False
    return all(converter.with_context(probe) is converter for probe in _PROBES)


@functools.lru_cache(maxsize=_SNIPPETS)
def _compiled(source: str) -> CodeType:
    return compile(source, "<string>", "exec")


class _CompiledOnceInstance(_Instance):
    def __init__(
        self,
        instance_details: WorkflowInstanceDetails,
        runner_class: type[WorkflowRunner],
        restrictions: SandboxRestrictions,
        *,
        context_free: bool,
    ) -> None:
        self._context_free = context_free
        super().__init__(instance_details, runner_class, restrictions)

    def _run_code(self, code: str | CodeType, **extra_globals: Any) -> None:
        super()._run_code(_compiled(code) if isinstance(code, str) else code, **extra_globals)  # type: ignore[arg-type]

    def get_serialization_context(self, command_info: Any) -> SerializationContext | None:
        # None: the converter without a context, which for this worker is the same converter.
        if self._context_free:
            return None
        return super().get_serialization_context(command_info)

    def get_external_store_context(self, command_info: Any) -> StorageDriverStoreContext:
        if self._context_free:
            return StorageDriverStoreContext(target=None)
        return super().get_external_store_context(command_info)


@dataclass(frozen=True)
class CompiledSandboxRunner(SandboxedWorkflowRunner):
    """SandboxedWorkflowRunner whose instances compile each glue snippet once."""

    context_free: bool = False
    """The worker's data converter takes no context (`takes_no_context`): lookups skip the
    sandbox. Set it only through `for_converter`."""

    def for_converter(self, converter: DataConverter) -> CompiledSandboxRunner:
        """This runner for a worker with `converter`: context-free if the converter is."""
        return replace(self, context_free=takes_no_context(converter))

    def create_instance(self, det: WorkflowInstanceDetails) -> WorkflowInstance:
        return _CompiledOnceInstance(
            det, self.runner_class, self.restrictions, context_free=self.context_free
        )
