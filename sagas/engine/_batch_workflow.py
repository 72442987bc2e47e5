"""The workflow side every batch type shares: input decoding, the view query."""

from __future__ import annotations

from typing import Any, ClassVar

from temporalio import workflow
from temporalio.common import RawValue
from temporalio.exceptions import ApplicationError

from sagas.engine._batch import BatchDefinition, BatchProgress
from sagas.engine._batch_runtime import BatchRuntime
from sagas.engine._outcome import SagaOutcome, SagaView
from sagas.engine._runtime import SagaRuntime
from sagas.engine._search_attributes import SAGA_STATUS, SAGA_TYPE
from sagas.engine._status import SagaStatus
from sagas.engine._workflow_base import (
    VIEW_QUERY,
    InputRefusedError,
    decoded_input,
    decoded_request,
)


class SagaBatchWorkflow:
    """Base of every batch workflow class; subclasses set `batch` and define `run`."""

    batch: ClassVar[BatchDefinition]
    _runtime: BatchRuntime | None = None
    _rejected: SagaRuntime[Any, Any] | None = None

    async def run_batch(self, *inputs: RawValue) -> SagaOutcome:
        """Run the batch from its request (and, once continued as new, its progress); a
        refused request ends it REJECTED at once, with no item started."""
        try:
            request = decoded_request(self.batch.saga, inputs, most=2)
        except InputRefusedError as refused:
            self._rejected = SagaRuntime(self.batch.saga, None)
            return await self._rejected.reject(refused.failure, refused.raw_input)
        progress = decoded_input(inputs[1], BatchProgress) if len(inputs) == 2 else BatchProgress()
        workflow.upsert_search_attributes(
            [
                SAGA_TYPE.value_set(self.batch.saga_type),
                SAGA_STATUS.value_set(SagaStatus.RUNNING.value),
            ]
        )
        self._runtime = BatchRuntime(self.batch, request, progress)
        return await self._runtime.run()

    @workflow.query(name=VIEW_QUERY)
    def view(self) -> SagaView:
        """The batch's status, the items ended so far and those running."""
        if self._runtime is not None:
            return self._runtime.view()
        if self._rejected is not None:
            return self._rejected.view()
        raise ApplicationError("the batch has not started", type="SagaNotStarted")
