"""The benchmark suite: the engine's cost against bare Temporal, NAIVE sagas and DBOS, on
SQLite and PostgreSQL ledgers, with the performance targets as its last block."""

from tooling.bench._config import DEFAULT_OUTPUT_DIR, BenchConfig, WorkerKnobs
from tooling.bench._report import table, write_outputs
from tooling.bench._results import (
    Contention,
    Latency,
    Report,
    ScalingPoint,
    ScenarioResult,
    Soak,
    Target,
    TargetStatus,
)
from tooling.bench._runner import run_bench
from tooling.bench._scenarios import Scenario
from tooling.bench._step_cost import StepCost, measure_step_cost

__all__ = [
    "DEFAULT_OUTPUT_DIR",
    "BenchConfig",
    "Contention",
    "Latency",
    "Report",
    "ScalingPoint",
    "Scenario",
    "ScenarioResult",
    "Soak",
    "StepCost",
    "Target",
    "TargetStatus",
    "WorkerKnobs",
    "measure_step_cost",
    "run_bench",
    "table",
    "write_outputs",
]
