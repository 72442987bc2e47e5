"""The loop of a batch inside its workflow: start items as child sagas, collect their ends.

Deterministic orchestration only. Items run as child workflows with deterministic ids, so a
batch never starts an item twice: an id already taken ends that item ABORTED instead. Before
continuing as new the batch waits for its running items, so none is left to a closed run.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import datetime, timedelta

from pydantic import JsonValue
from temporalio import workflow
from temporalio.common import (
    SearchAttributePair,
    TypedSearchAttributes,
    WorkflowIDReusePolicy,
)
from temporalio.exceptions import ChildWorkflowError, WorkflowAlreadyStartedError
from temporalio.workflow import ParentClosePolicy

from sagas.engine._audit_call import AuditKind
from sagas.engine._audit_trail import (
    AUDIT_COMPLETED_MEMO,
    audit_completed_sagas,
    write_audit_record,
)
from sagas.engine._batch import (
    TERMINAL_ITEM,
    BatchDefinition,
    BatchItemOutcome,
    BatchItemStatus,
    BatchOutcome,
    BatchProgress,
    BatchRequest,
    BatchView,
    item_counts,
)
from sagas.engine._metrics import saga_finished, saga_started
from sagas.engine._outcome import SagaOutcome
from sagas.engine._saga_money import MONEY_MEMO, SagaMoney
from sagas.engine._search_attributes import (
    SAGA_STATUS,
    SAGA_STATUS_SINCE,
    SAGA_TYPE,
    deadline_pair,
)
from sagas.engine._status import SagaStatus
from sagas.engine._workflow_util import uncancellable

BATCH_RECORD = "batch"
"""Dedupe suffix of the record listing a batch's items."""


class BatchRuntime:
    """State and loop of one run of a batch; the workflow class delegates to it."""

    def __init__(
        self, definition: BatchDefinition, request: BatchRequest, progress: BatchProgress
    ) -> None:
        self.definition = definition
        self.request = request
        self.progress = progress
        self.batch_id = workflow.info().workflow_id
        self.ended: dict[int, BatchItemOutcome] = {item.number: item for item in progress.items}
        self.running: dict[int, str] = {}
        self.tasks: dict[int, asyncio.Future[None]] = {}
        self.status = SagaStatus.RUNNING
        self.stopped_because = ""

    @property
    def total(self) -> int:
        return len(self.request.items)

    async def run(self) -> BatchOutcome:
        """Start the items this run takes; continue as new while items remain, else close."""
        if self.progress.started_at is None:  # the first run, not one continued as new
            saga_started(self.definition.saga_type)
        started_at = self.progress.started_at or workflow.now()
        deadline = started_at + timedelta(seconds=self.request.deadline_seconds)
        number = await self._start_items(self.progress.next_number, deadline)
        await uncancellable(workflow.wait_condition(lambda: not self.running))
        if number <= self.total and not self.stopped_because:
            workflow.continue_as_new(
                args=[self.request, self._progress(number, started_at)],
            )
        for left in range(number, self.total + 1):
            self._end(left, BatchItemStatus.NOT_STARTED, note=self.stopped_because)
        self.status = SagaStatus.COMPLETED
        workflow.upsert_search_attributes(
            [
                SAGA_STATUS.value_set(self.status.value),
                SAGA_STATUS_SINCE.value_set(workflow.now()),
            ]
        )
        self._show_details()
        outcome = self.outcome()
        payload: dict[str, JsonValue] = {
            "request": self.request.model_dump(mode="json"),
            "counts": dict(outcome.counts()),
            "items": [item.model_dump(mode="json") for item in outcome.items],
        }
        await write_audit_record(
            AuditKind.BATCH_COMPLETED,
            self.batch_id,
            self.definition.saga_type,
            f"{self.batch_id}:{BATCH_RECORD}",
            payload,
        )
        saga_finished(self.definition.saga_type, self.status)
        return outcome

    async def _start_items(self, first: int, deadline: datetime) -> int:
        """Start items from `first` until this run's share is started, the deadline passes or
        the batch is cancelled; the number of the first item not started."""
        limit = self.definition.concurrency_of(self.request)
        number = first
        try:
            while number <= self.total and number - first < self.definition.items_per_run:
                if workflow.now() < deadline:  # a timer of no time is not a timer
                    with contextlib.suppress(TimeoutError):
                        await workflow.wait_condition(
                            lambda: len(self.running) < limit, timeout=deadline - workflow.now()
                        )
                if workflow.now() >= deadline:
                    self.stopped_because = "the batch passed its deadline before this item"
                    break
                self._launch(number)
                number += 1
        except asyncio.CancelledError:
            self.stopped_because = "the batch was cancelled before this item"
        return number

    def _launch(self, number: int) -> None:
        self.running[number] = self.definition.item_saga_id(self.request, number)
        self._show_details()
        self.tasks[number] = asyncio.ensure_future(self._run_item(number))

    async def _run_item(self, number: int) -> None:
        item_id = self.running[number]
        request = self.request.item_request(number)
        try:
            handle = await workflow.start_child_workflow(
                self.definition.item_workflow,
                request,
                id=item_id,
                result_type=SagaOutcome,
                parent_close_policy=ParentClosePolicy.ABANDON,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
                memo={
                    AUDIT_COMPLETED_MEMO: audit_completed_sagas(),
                    MONEY_MEMO: SagaMoney.of(self.definition.item_saga, request).memo(),
                },
                search_attributes=TypedSearchAttributes(
                    [
                        SearchAttributePair(SAGA_TYPE, self.definition.item_saga.saga_type),
                        SearchAttributePair(SAGA_STATUS, SagaStatus.RUNNING.value),
                        deadline_pair(workflow.now(), request.deadline_seconds),
                    ]
                ),
                static_summary=request.summary(),
            )
            outcome = await handle
        except WorkflowAlreadyStartedError:
            self._end(number, BatchItemStatus.ABORTED, note="its saga id is taken by another saga")
        except ChildWorkflowError as err:
            self._end(number, BatchItemStatus.ABORTED, note=str(err.cause or err))
        else:
            self._end(number, TERMINAL_ITEM[outcome.status], failure=outcome.failure)
        # Not in a `finally`: a worker evicting the workflow closes this coroutine, and
        # workflow calls are refused then.
        self.running.pop(number, None)
        self.tasks.pop(number, None)
        self._show_details()

    def _end(self, number: int, status: BatchItemStatus, **details: object) -> None:
        item_id = self.definition.item_saga_id(self.request, number)
        self.ended[number] = BatchItemOutcome.model_validate(
            {"number": number, "saga_id": item_id, "status": status, **details}
        )

    def _progress(self, next_number: int, started_at: datetime) -> BatchProgress:
        return BatchProgress(
            next_number=next_number,
            items=self._items(),
            started_at=started_at,
            runs=self.progress.runs + 1,
        )

    def _items(self) -> list[BatchItemOutcome]:
        return [self.ended[number] for number in sorted(self.ended)]

    def outcome(self) -> BatchOutcome:
        return BatchOutcome(
            saga_id=self.batch_id,
            saga_type=self.definition.saga_type,
            status=self.status,
            items=self._items(),
            runs=self.progress.runs,
        )

    def view(self) -> BatchView:
        return BatchView(
            saga_id=self.batch_id,
            saga_type=self.definition.saga_type,
            status=self.status,
            current_step=None,
            snapshots=[],
            compensation_stack=[],
            failure=None,
            compensations=[],
            items=self._items(),
            running=[self.running[n] for n in sorted(self.running)],
            total=self.total,
        )

    def _show_details(self) -> None:
        counts = ", ".join(f"{k} {v}" for k, v in item_counts(self._items()).items()) or "none"
        lines = [
            f"**Status:** {self.status.value}",
            f"**Items:** {len(self.ended)} of {self.total} ended ({counts}); "
            f"{len(self.running)} running",
            f"**Run:** {self.progress.runs}",
        ]
        if self.stopped_because:
            lines.append(f"**Stopped:** {self.stopped_because}")
        workflow.set_current_details("\n\n".join(lines))
