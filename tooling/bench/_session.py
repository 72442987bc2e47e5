"""The measured phases of a run against one dev server and one worker process."""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field

from temporalio.api.enums.v1 import EventType
from temporalio.client import Client

from tooling.bench._config import BenchConfig
from tooling.bench._load import Block, Probe, RunOne, closed_loop, open_loop
from tooling.bench._metrics import median
from tooling.bench._scenarios import INTERLEAVED, VARIANTS, Scenario

WARMUP_CONCURRENCY = 8
ACTIVITY_FAILED = EventType.EVENT_TYPE_ACTIVITY_TASK_FAILED
WORKFLOW_TASK_STARTED = EventType.EVENT_TYPE_WORKFLOW_TASK_STARTED


@dataclass(kw_only=True)
class Measured:
    """Every block one scenario ran, by phase."""

    tput: dict[int, list[Block]] = field(default_factory=dict)
    c1: list[Block] = field(default_factory=list)
    half: list[Block] = field(default_factory=list)
    half_rate: float | None = None
    events: list[tuple[int, int]] = field(default_factory=list)
    """(history length, state transition count) of described sagas."""
    failure_to_close_s: list[float] = field(default_factory=list)
    first_task_s: list[float] = field(default_factory=list)
    """Unloaded sagas: from the start to the first workflow task handed to a worker."""

    def all_blocks(self) -> list[Block]:
        return [b for blocks in self.tput.values() for b in blocks] + self.c1 + self.half

    def max_tput(self) -> float:
        return max(median([b.tput for b in blocks]) for blocks in self.tput.values())


def progress(message: str) -> None:
    print(f"bench: {message}", file=sys.stderr, flush=True)


def _order(round_index: int, scenarios: Sequence[Scenario] = INTERLEAVED) -> Sequence[Scenario]:
    """ABC, CBA, ABC ...: each scenario is as often early as late in a round."""
    return scenarios if round_index % 2 == 0 else tuple(reversed(scenarios))


class Session:
    def __init__(
        self,
        config: BenchConfig,
        probes: dict[Scenario, Probe],
        temporal: Client,
        runners: dict[Scenario, RunOne],
    ) -> None:
        """`probes` measures each scenario's own worker process (DBOS runs in its own)."""
        self.config = config
        self.probes = probes
        self.temporal = temporal
        self.runners = runners
        self.measured = {scenario: Measured() for scenario in runners}
        self.interleaved = tuple(s for s in (*INTERLEAVED, Scenario.DBOS) if s in runners)
        """The scenarios of every phase's alternating blocks: DBOS with them when it runs."""

    async def _closed(self, scenario: Scenario, n: int, concurrency: int) -> Block:
        return await closed_loop(self.probes[scenario], self.runners[scenario], n, concurrency)

    async def run(self) -> dict[Scenario, Measured]:
        await self.warm_up()
        await self.throughput()
        await self.latency_unloaded()
        await self.latency_half_load()
        await self.compensate()
        for scenario in self.runners:
            if scenario is not Scenario.DBOS:
                await self.describe(scenario)
        return self.measured

    async def warm_up(self) -> None:
        for scenario in self.runners:
            await self._closed(scenario, self.config.warmup, WARMUP_CONCURRENCY)

    def _at(self, concurrency: int) -> tuple[Scenario, ...]:
        """The interleaved scenarios, and the variants at the first concurrency."""
        variants = tuple(v for v in VARIANTS if v in self.runners)
        first = concurrency == self.config.concurrencies[0]
        return self.interleaved + variants if first else self.interleaved

    async def throughput(self) -> None:
        for concurrency in self.config.concurrencies:
            for r in range(self.config.rounds):
                for scenario in _order(r, self._at(concurrency)):
                    block = await self._closed(scenario, self.config.block, concurrency)
                    self.measured[scenario].tput.setdefault(concurrency, []).append(block)
                    progress(f"tput@{concurrency} round {r + 1}: {scenario} {block.tput:.1f}/s")

    async def latency_unloaded(self) -> None:
        per_block = math.ceil(self.config.latency_samples / self.config.rounds)
        for r in range(self.config.rounds):
            for scenario in _order(r, self.interleaved):
                block = await self._closed(scenario, per_block, 1)
                self.measured[scenario].c1.append(block)
                progress(f"latency@1 round {r + 1}: {scenario} done")

    async def latency_half_load(self) -> None:
        per_block = math.ceil(self.config.open_loop_samples / self.config.rounds)
        for scenario in self.interleaved:
            self.measured[scenario].half_rate = round(self.measured[scenario].max_tput() / 2, 2)
        for r in range(self.config.rounds):
            for scenario in _order(r, self.interleaved):
                measured = self.measured[scenario]
                assert measured.half_rate is not None
                block = await open_loop(
                    self.probes[scenario], self.runners[scenario], per_block, measured.half_rate
                )
                measured.half.append(block)
                progress(f"open loop at {measured.half_rate}/s round {r + 1}: {scenario} done")

    async def compensate(self) -> None:
        measured = self.measured[Scenario.COMPENSATE]
        block = await self._closed(Scenario.COMPENSATE, self.config.compensate_samples, 1)
        measured.c1.append(block)
        concurrency = self.config.concurrencies[0]
        measured.tput[concurrency] = [
            await self._closed(Scenario.COMPENSATE, self.config.block, concurrency)
        ]
        for workflow_id in block.workflow_ids:
            seconds = await self._failure_to_close(workflow_id)
            if seconds is not None:
                measured.failure_to_close_s.append(seconds)

    async def _failure_to_close(self, workflow_id: str) -> float | None:
        """From the failed step's event to the close event, in server time."""
        history = await self.temporal.get_workflow_handle(workflow_id).fetch_history()
        failed = next((e for e in history.events if e.event_type == ACTIVITY_FAILED), None)
        if failed is None:
            return None
        closed = history.events[-1]
        delta = closed.event_time.ToDatetime() - failed.event_time.ToDatetime()
        return delta.total_seconds()

    async def describe(self, scenario: Scenario) -> None:
        measured = self.measured[scenario]
        ids = [wid for block in measured.all_blocks() for wid in block.workflow_ids]
        for workflow_id in ids[: self.config.events_samples]:
            info = (
                await self.temporal.get_workflow_handle(workflow_id).describe()
            ).raw_description.workflow_execution_info
            measured.events.append((info.history_length, info.state_transition_count))
        unloaded = [wid for block in measured.c1 for wid in block.workflow_ids]
        for workflow_id in unloaded[: self.config.events_samples]:
            measured.first_task_s.append(await self._start_to_first_task(workflow_id))

    async def _start_to_first_task(self, workflow_id: str) -> float:
        """From the start event to the first workflow task's start, in server time: how long a
        new saga waits before a worker runs any of it."""
        history = await self.temporal.get_workflow_handle(workflow_id).fetch_history()
        started = history.events[0].event_time.ToDatetime()
        task = next(e for e in history.events if e.event_type == WORKFLOW_TASK_STARTED)
        return (task.event_time.ToDatetime() - started).total_seconds()
