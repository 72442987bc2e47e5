"""The snapshot the engine records before each step's action."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, JsonValue

from sagas.engine._inquiry import InquiryRecord
from sagas.engine._saga_retry_specs import SagaRetrySpecs
from sagas.engine._status import SagaStatus


class CompensationEntry(BaseModel):
    """One entry of the compensation stack: the step whose compensation will undo it."""

    model_config = ConfigDict(frozen=True)

    step_index: int
    step_name: str
    compensation: str


class RunClaim(BaseModel):
    """The launch fence: a run chain claims its saga id before its first effect or snapshot.

    The chain is the workflow's first execution run id, shared by every run of it (retries,
    continue-as-new, a reset). A run of another chain finds the id claimed and takes no effect.
    """

    model_config = ConfigDict(frozen=True)

    saga_id: str
    saga_type: str
    run_chain: str


class Snapshot(BaseModel):
    """The saga as it stood just before step `step_index` ran its action."""

    model_config = ConfigDict(frozen=True)

    saga_id: str
    saga_type: str
    step_index: int
    step_name: str
    status: SagaStatus
    data: dict[str, JsonValue]
    compensation_stack: list[CompensationEntry]
    attempt: int = 1
    recorded_at: datetime
    forward_only: bool = False
    """The saga's pivot has started by this step: it is never compensated from here on."""
    inquiries: list[InquiryRecord] = []
    """The inquiries the saga made before this step."""
    retry_specs: SagaRetrySpecs | None = None
    """On the saga's first snapshot: the retry specs it runs with, resolved when it started."""
