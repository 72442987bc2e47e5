"""The worker: every registered saga type's workflows and activities on one task queue."""

from sagas.worker._encryption_marker import announce_encryption
from sagas.worker._running_activities import RunningActivities, RunningActivity
from sagas.worker._sandbox import CompiledSandboxRunner
from sagas.worker._worker import GRACEFUL_SHUTDOWN, build_worker, saga_workflow_runner
from sagas.worker._working_directory import import_from_working_directory

__all__ = [
    "GRACEFUL_SHUTDOWN",
    "CompiledSandboxRunner",
    "RunningActivities",
    "RunningActivity",
    "announce_encryption",
    "build_worker",
    "import_from_working_directory",
    "saga_workflow_runner",
]
