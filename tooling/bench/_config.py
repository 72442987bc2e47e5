"""What one benchmark run does: sizes, knobs and where it writes."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

DEFAULT_OUTPUT_DIR = Path(".fundsaga/bench")
DATABASES = ("sqlite", "postgresql")
DEFAULT_PG_URL = "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
"""The admin that creates the run's PostgreSQL database (FUNDSAGA_TEST_PG_URL overrides it)."""
SCALING_PROCESSES = (1, 2, 4)
CONTENTION_FULL_SIZE = 1000
"""Transfer sagas per contention shape under --full."""


@dataclass(frozen=True, kw_only=True)
class WorkerKnobs:
    """Worker and database settings, applied alike to every scenario's worker."""

    max_concurrent_activities: int = 32
    """Activity slots and activity threads (build_worker's default)."""
    max_concurrent_workflow_tasks: int | None = None
    """Workflow task slots; None keeps the SDK default."""
    max_cached_workflows: int | None = None
    """Sticky cache size; None keeps the SDK default (1000)."""
    sandbox: str = "passthrough"
    """`passthrough` (build_worker's runner: the `workflows` package passed through), `sdk-default`
    (the SDK's sandbox, which re-imports the workflow modules for every run) or `off` (no
    sandbox: the upper bound of what sandbox tuning can win)."""
    sqlite_journal: str = "wal"
    """`wal` (fundsaga's setting) or `delete`, to measure what WAL is worth."""
    eager_activities: bool = False
    """Turn on eager activity execution in the dev server's dynamic config."""
    codec: bool = False
    """Every Temporal client of the run (the load generator's and the worker's) on fundsaga's
    `converter_for(keys)`: payloads encrypted, failure attributes encoded, one key per run."""


@dataclass(frozen=True, kw_only=True)
class BenchConfig:
    """Sizes of one run. Throughput blocks alternate the INTERLEAVED scenarios in each round."""

    concurrencies: tuple[int, ...] = (16, 64)
    rounds: int = 3
    """Alternating blocks (repetitions) per scenario, at each concurrency and latency phase."""
    databases: tuple[str, ...] = DATABASES
    """Ledger databases, each a whole session of its own, rows labelled by database."""
    variants: bool = True
    """Also the add-on-off ENGINE variants, at the first concurrency only."""
    block: int = 60
    """Sagas per throughput block."""
    latency_samples: int = 45
    """Sagas per scenario at concurrency 1 (split across the rounds)."""
    open_loop_samples: int = 60
    """Sagas per scenario in the open-loop run at half the scenario's maximum throughput."""
    compensate_samples: int = 20
    warmup: int = 24
    events_samples: int = 5
    """Closed sagas per scenario described for history events and state transitions."""
    soak: int = 0
    """Transfers through one worker for the memory soak (ENGINE, then ENGINE-LOCAL, on the
    first database); 0 skips it."""
    scaling: tuple[int, ...] = ()
    """Worker process counts for the process-scaling run on PostgreSQL; empty skips it."""
    scaling_sagas: int = 320
    """ENGINE sagas per process count in the scaling run, at the last concurrency."""
    contention: int = 200
    """Transfer sagas per contention shape (spread, hot source, hot destination, hot pair) on
    each database; 0 skips the section."""
    contention_concurrency: int = 16
    """Lanes starting the contention sagas back to back."""
    features: int = 40
    """Sagas per block of BARE, of each engine feature alone and of all of them (server CPU by
    feature), on the first database, at the first concurrency, twice `rounds` rounds (a block
    of the server's CPU moves by several ms per saga: more rounds, a steadier median); 0 skips
    the section."""
    only: str | None = None
    """One section alone: `contention` (the shapes on each database), `features` (the server's
    CPU by engine feature) or `scaling` (the process-scaling run); no scenarios, no DBOS."""
    dbos: bool = True
    knobs: WorkerKnobs = field(default_factory=WorkerKnobs)
    output_dir: Path = DEFAULT_OUTPUT_DIR
    label: str = "default"

    def smoke(self) -> BenchConfig:
        """Tiny sizes: every phase runs and every field is written, in seconds."""
        return replace(
            self,
            concurrencies=(4,),
            rounds=2,
            block=4,
            latency_samples=2,
            open_loop_samples=2,
            compensate_samples=2,
            warmup=2,
            events_samples=1,
            soak=min(self.soak, 20),
            scaling=self.scaling[:2],
            scaling_sagas=min(self.scaling_sagas, 8),
            contention=min(self.contention, 6),
            features=min(self.features, 4),
            contention_concurrency=min(self.contention_concurrency, 4),
        )
