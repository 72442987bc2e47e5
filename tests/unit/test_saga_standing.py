"""The one decision of a saga's status that `sagas list` and `sagas view` share, from a run and
its recovery as Temporal describes them: every status, waiting, killed and recovered."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from temporalio.api.common.v1 import WorkflowExecution as ExecutionId
from temporalio.api.enums.v1 import WorkflowExecutionStatus as RawStatus
from temporalio.api.workflow.v1 import WorkflowExecutionInfo
from temporalio.client import WorkflowExecution
from temporalio.common import SearchAttributePair, TypedSearchAttributes
from temporalio.converter import DataConverter, encode_search_attributes

from sagas import SagaStatus
from sagas.client import SagaStanding, saga_standing
from sagas.engine import SAGA_STATUS, SAGA_WAITING_ON, SAGA_WAITING_SINCE, recovery_id

SINCE = datetime(2026, 11, 28, 9, 30, tzinfo=UTC)
RUNNING, COMPLETED, TERMINATED, TIMED_OUT, CONTINUED = (
    RawStatus.WORKFLOW_EXECUTION_STATUS_RUNNING,
    RawStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED,
    RawStatus.WORKFLOW_EXECUTION_STATUS_TERMINATED,
    RawStatus.WORKFLOW_EXECUTION_STATUS_TIMED_OUT,
    RawStatus.WORKFLOW_EXECUTION_STATUS_CONTINUED_AS_NEW,
)


def run(
    workflow_id: str, status: RawStatus.ValueType, shown: str | None, waiting_on: str = ""
) -> WorkflowExecution:
    """A run as visibility lists it (or describe describes it)."""
    pairs: list[SearchAttributePair[Any]] = []
    if shown is not None:
        pairs.append(SearchAttributePair(SAGA_STATUS, shown))
    if waiting_on:
        pairs.append(SearchAttributePair(SAGA_WAITING_ON, waiting_on))
        pairs.append(SearchAttributePair(SAGA_WAITING_SINCE, SINCE))
    info = WorkflowExecutionInfo(
        execution=ExecutionId(workflow_id=workflow_id, run_id="r-1"), status=status
    )
    encode_search_attributes(TypedSearchAttributes(pairs), info.search_attributes)
    return WorkflowExecution._from_raw_info(info, "default", DataConverter.default)


SAGA = "transfer-k-1"
RECOVERY = recovery_id(SAGA)
CASES = [
    (run(SAGA, RUNNING, "RUNNING"), None, SagaStanding(SagaStatus.RUNNING), "RUNNING"),
    (run(SAGA, RUNNING, None), None, SagaStanding(SagaStatus.RUNNING), "RUNNING"),
    (
        run(SAGA, RUNNING, "COMPENSATING", "DatabaseBusyError"),
        None,
        SagaStanding(SagaStatus.COMPENSATING, "DatabaseBusyError", SINCE),
        "COMPENSATING, waiting on DatabaseBusyError",
    ),
    (run(SAGA, RUNNING, "NEEDS_ATTENTION"), None, SagaStanding(SagaStatus.NEEDS_ATTENTION), None),
    (run(SAGA, COMPLETED, "COMPLETED"), None, SagaStanding(SagaStatus.COMPLETED), "COMPLETED"),
    (run(SAGA, COMPLETED, "COMPENSATED"), None, SagaStanding(SagaStatus.COMPENSATED), None),
    (run(SAGA, COMPLETED, "RESOLVED"), None, SagaStanding(SagaStatus.RESOLVED), None),
    (run(SAGA, COMPLETED, "REJECTED"), None, SagaStanding(SagaStatus.REJECTED), None),
    (run(SAGA, CONTINUED, "RUNNING"), None, SagaStanding(SagaStatus.RUNNING), None),
    (
        run(SAGA, TERMINATED, "RUNNING", "DatabaseBusyError"),
        None,
        SagaStanding(SagaStatus.KILLED, killed_as="Terminated"),
        "KILLED (Terminated)",
    ),
    (
        run(SAGA, TIMED_OUT, "NEEDS_ATTENTION"),
        run(RECOVERY, RUNNING, "KILLED"),
        SagaStanding(SagaStatus.KILLED, killed_as="TimedOut", recovery_id=RECOVERY),
        "KILLED (TimedOut)",
    ),
    (
        run(SAGA, TERMINATED, "RUNNING"),
        run(RECOVERY, RUNNING, "COMPENSATING", "DatabaseBusyError"),
        SagaStanding(SagaStatus.COMPENSATING, "DatabaseBusyError", SINCE, "Terminated", RECOVERY),
        "COMPENSATING, recovering (Terminated), waiting on DatabaseBusyError",
    ),
    (
        run(SAGA, TERMINATED, "RUNNING"),
        run(RECOVERY, COMPLETED, "COMPENSATED"),
        SagaStanding(SagaStatus.COMPENSATED, killed_as="Terminated", recovery_id=RECOVERY),
        "COMPENSATED, recovered (Terminated)",
    ),
    (
        run(SAGA, TERMINATED, "RUNNING"),
        run(RECOVERY, COMPLETED, "COMPLETED"),
        SagaStanding(SagaStatus.COMPLETED, killed_as="Terminated", recovery_id=RECOVERY),
        "COMPLETED, recovered (Terminated)",
    ),
    (
        None,
        run(RECOVERY, RUNNING, "KILLED"),
        SagaStanding(SagaStatus.KILLED, killed_as="Deleted", recovery_id=RECOVERY),
        "KILLED (Deleted)",
    ),
    (  # closed by the engine: its recovery, if one was ever started, says nothing
        run(SAGA, COMPLETED, "COMPLETED"),
        run(RECOVERY, COMPLETED, "COMPENSATED"),
        SagaStanding(SagaStatus.COMPLETED),
        "COMPLETED",
    ),
]


@pytest.mark.parametrize(("saga", "recovery", "standing", "text"), CASES)
def test_a_saga_stands_as_its_run_and_recovery_say(
    saga: WorkflowExecution | None,
    recovery: WorkflowExecution | None,
    standing: SagaStanding,
    text: str | None,
) -> None:
    decided = saga_standing(saga, recovery)

    assert decided == standing
    assert decided.text() == (text or standing.status.value)


def test_a_saga_with_neither_run_nor_recovery_is_refused() -> None:
    with pytest.raises(ValueError, match="needs its run or its recovery"):
        saga_standing(None, None)
