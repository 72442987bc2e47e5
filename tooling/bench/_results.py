"""The figures of one run, as plain dataclasses that serialise to JSON."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum


@dataclass(frozen=True, kw_only=True)
class Latency:
    """Start-to-result latency of a set of sagas, in milliseconds."""

    n: int
    p50_ms: float
    p95_ms: float
    p99_ms: float
    mean_ms: float


@dataclass(kw_only=True)
class ScenarioResult:
    name: str
    database: str = "sqlite"
    """The ledger's database: `sqlite` or `postgresql` (DBOS: its own SQLite database)."""
    status: str = "ok"
    """`ok`, `not installed` or `failed: ...` (DBOS only can be other than ok)."""
    sagas: int = 0
    """Sagas run and measured, warm-up excluded."""
    failures: int = 0
    """Sagas that did not end as the scenario expects."""
    tput: dict[str, float] = field(default_factory=dict)
    """Sagas per second by concurrency: the median of the scenario's blocks."""
    tput_blocks: dict[str, list[float]] = field(default_factory=dict)
    latency_c1: Latency | None = None
    first_task_ms: float | None = None
    """Concurrency 1: from a saga's start to its first workflow task handed to a worker (server
    time, median of the described sagas): the part of latency_c1 before any of it runs."""
    p50_c1_blocks: list[float] = field(default_factory=list)
    """p50 (ms) of each repetition's block at concurrency 1, for per-repetition ratios."""
    latency_half: Latency | None = None
    half_rate: float | None = None
    """The open-loop arrival rate (sagas/s) of latency_half."""
    history_events: float | None = None
    state_transitions: float | None = None
    worker_cpu_ms_per_saga: float | None = None
    server_cpu_ms_per_saga: float | None = None
    """Temporal dev server CPU per saga (None where no Temporal server runs)."""
    worker_peak_rss_mb: float | None = None
    failure_to_compensated: Latency | None = None
    """ENGINE-COMPENSATE only: from the failed step's event to the saga's close (server time)."""


class TargetStatus(StrEnum):
    MET = "met"  # the value reaches the threshold
    NOT_MET = "NOT MET"  # measured, and it does not
    NOT_MEASURED = "not measured"  # this run did not measure it (DBOS off, no FULL=1, ...)
    REPORTED = "reported"  # a figure with no threshold (an add-on's cost, the scaling)


@dataclass(frozen=True, kw_only=True)
class Target:
    name: str
    wanted: str
    value: float | None
    met: bool
    status: TargetStatus = TargetStatus.NOT_MEASURED
    note: str = ""


@dataclass(frozen=True, kw_only=True)
class ScalingPoint:
    """ENGINE at the last concurrency with `processes` worker processes on PostgreSQL."""

    processes: int
    tput: float
    sagas: int
    failures: int
    worker_cpu_ms_per_saga: list[float]
    """Each worker process's CPU over the block, divided by every saga of the block."""
    server_cpu_ms_per_saga: float


@dataclass(frozen=True, kw_only=True)
class Soak:
    scenario: str
    transfers: int
    warmup: int
    rss_after_warmup_mb: float
    rss_end_mb: float
    rss_max_after_warmup_mb: float
    growth_mb: float
    """Max RSS after warm-up minus RSS at the end of warm-up."""
    samples: list[tuple[int, float]]
    """(transfers done, worker RSS MB) along the run."""
    failures: int
    elapsed_s: float = 0.0


@dataclass(frozen=True, kw_only=True)
class FeatureCost:
    """BARE with one of the engine's server-side features on, against BARE in the same rounds."""

    feature: str
    """The feature, or `BARE` for the baseline row."""
    sagas: int
    failures: int
    server_cpu_ms_per_saga: float
    worker_cpu_ms_per_saga: float
    server_ms_over_bare: float
    """Median over the rounds of this row's server CPU per saga less BARE's in that round."""
    worker_ms_over_bare: float
    history_events: int
    events_over_bare: int
    operator_gets: str
    """What the feature is for, beside its cost."""


@dataclass(kw_only=True)
class Report:
    label: str
    conditions: dict[str, str | int | float | bool]
    scenarios: list[ScenarioResult]
    ratios: dict[str, dict[str, float]]
    """Ratios by database."""
    targets: list[Target]
    soaks: list[Soak] = field(default_factory=list)
    scaling: list[ScalingPoint] = field(default_factory=list)
    contention: list[Contention] = field(default_factory=list)
    contention_s: float = 0.0
    """Wall time of the contention section, over every database."""
    features: list[FeatureCost] = field(default_factory=list)
    """The server's CPU by engine feature (on the first database's session)."""
    elapsed_s: float = 0.0
    notes: list[str] = field(default_factory=list)
    plot: str | None = None
    """File name of the latency plot, or None when matplotlib is missing."""
    contention_plot: str | None = None
    """File name of the contention shapes' panel, or None (no shapes, or no matplotlib)."""

    def scenario(self, name: str, database: str = "sqlite") -> ScenarioResult:
        for result in self.scenarios:
            if result.name == name and result.database == database:
                return result
        raise KeyError(name)


@dataclass(frozen=True, kw_only=True)
class Contention:
    """One contention shape at saga level: `sagas` transfers started by `concurrency` lanes."""

    shape: str
    database: str
    sagas: int
    concurrency: int
    accepted_per_s: float
    """Starts acknowledged by Temporal per second, from the first start to the last ack."""
    applied_per_s: float
    """Sagas COMPLETED per second, from the first start to the last close."""
    latency: Latency
    """From a saga's start call to its close."""
    statuses: dict[str, int]
    """Closed sagas by status: every saga started is here (nothing lost when all completed)."""
    journal_applied: int
    """Sagas whose journal entries net to the whole transfer."""
    busiest_account: str
    busiest_sagas: int
    """Sagas that moved money on the busiest customer account."""
    invariant_findings: list[str]
    elapsed_s: float

    @property
    def lost(self) -> int:
        """Sagas not shown completed and applied in the journal."""
        completed = self.statuses.get("COMPLETED", 0)
        return self.sagas - min(completed, self.journal_applied)
