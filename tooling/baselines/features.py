"""BARE plus the engine's server-side features, one at a time or all together: what each costs
the Temporal server (the bench's section "Server CPU by engine feature").

Each feature is copied in the shape ENGINE gives it (the recorded history
tests/replay/histories/transfer-replay-TransferWorkflow-completed.json shows them): the saga's
search attributes and memo and static summary at the start, a summary on each activity, the
deadline timer a saga with a pivot races, the status upsert as it ends, the step payloads'
sizes. Registered only by the benchmark worker, not in ALL_WORKFLOWS.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from enum import StrEnum

from pydantic import BaseModel, ConfigDict
from temporalio import activity, workflow

with workflow.unsafe.imports_passed_through():
    from sagas.engine import SAGA_STATUS, SAGA_STATUS_SINCE, SagaStatus
    from sagas.transfer import ACTION_RETRY, TRANSFER_SAGA, TransferRequest


class Feature(StrEnum):
    SEARCH_ATTRIBUTES = "search-attributes"
    MEMO = "memo"
    SUMMARIES = "summaries"
    STATUS_UPSERT = "status-upsert"
    DEADLINE_TIMER = "deadline-timer"
    STEP_PAYLOADS = "step-payloads"


WHAT_THE_OPERATOR_GETS = {
    Feature.SEARCH_ATTRIBUTES: "list and filter sagas by type, status and deadline in the Web UI "
    "and `fundsaga sagas list` (SagaType, SagaStatus, SagaDeadline at the start)",
    Feature.MEMO: "a retried start told from a conflicting one (the request's fingerprint) and "
    "whether a completed saga writes an audit record",
    Feature.SUMMARIES: "the saga and each step in words in the Web UI's list and event history "
    "(`Transfer 56.78 EUR a -> b`, `reserve 56.78 EUR on a`)",
    Feature.STATUS_UPSERT: "the closing status (COMPLETED, COMPENSATED, NEEDS_ATTENTION...) and "
    "its time searchable: a business end is not one green COMPLETED",
    Feature.DEADLINE_TIMER: "a saga with a pivot (or local steps) stops at its deadline before "
    "the pivot and records one that passes after it",
    Feature.STEP_PAYLOADS: "each step's input carries the snapshot taken before it and the "
    "saga's retry specs: the state the audit and the recovery read",
}

FIRST_STEP_INPUT_BYTES = 2400
LATER_STEP_INPUT_BYTES = 1300
STEP_RESULT_BYTES = 250
"""ENGINE's step payloads, from the recorded history: the first StepCall carries the retry
specs (about 2.4 KB), the later ones 1.2-1.4 KB, each result about 0.2-0.3 KB."""
DEADLINE = timedelta(days=1)
STEP_TIMEOUT = TRANSFER_SAGA.steps[0].timeout


class FeatureRun(BaseModel):
    """A BARE saga with the given features on: none (the baseline), one, or all of them."""

    model_config = ConfigDict(frozen=True)

    features: frozenset[Feature]
    request: TransferRequest


class PaddedCall(BaseModel):
    model_config = ConfigDict(frozen=True)

    workflow_id: str
    step: str
    padding: str = ""
    result_bytes: int = 0


@activity.defn(name="bench.padded_noop")
def padded_noop(call: PaddedCall) -> str:
    """Does nothing, and answers `result_bytes` of filler: a step's result, sized."""
    return "x" * call.result_bytes


@workflow.defn(name="BenchFeatureWorkflow")
class FeatureWorkflow:
    """BARE's sequential no-op activities, with the run's one feature on."""

    @workflow.run
    async def run(self, run: FeatureRun) -> str:
        if Feature.DEADLINE_TIMER in run.features:
            # As the engine: the timer races the steps and is left to lapse, not cancelled.
            forward = asyncio.ensure_future(self._steps(run))
            timer = asyncio.ensure_future(asyncio.sleep(DEADLINE.total_seconds()))
            await workflow.wait([forward, timer], return_when=asyncio.FIRST_COMPLETED)
            forward.result()
        else:
            await self._steps(run)
        if Feature.STATUS_UPSERT in run.features:
            workflow.upsert_search_attributes(
                [
                    SAGA_STATUS.value_set(SagaStatus.COMPLETED.value),
                    SAGA_STATUS_SINCE.value_set(workflow.now()),
                ]
            )
        return "done"

    async def _steps(self, run: FeatureRun) -> None:
        workflow_id = workflow.info().workflow_id
        for number, step in enumerate(TRANSFER_SAGA.steps):
            call = PaddedCall(workflow_id=workflow_id, step=step.name)
            if Feature.STEP_PAYLOADS in run.features:
                size = FIRST_STEP_INPUT_BYTES if number == 0 else LATER_STEP_INPUT_BYTES
                call = call.model_copy(
                    update={"padding": "x" * size, "result_bytes": STEP_RESULT_BYTES}
                )
            summary = (
                step.describe_action(run.request) if Feature.SUMMARIES in run.features else None
            )
            await workflow.execute_activity(
                padded_noop,
                call,
                start_to_close_timeout=STEP_TIMEOUT,
                retry_policy=ACTION_RETRY.to_retry_policy(),
                summary=summary,
            )
