"""Load generators: closed loop at a fixed concurrency, open loop at a fixed arrival rate."""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from tooling.bench._procstat import reset_peak, sample


@dataclass(frozen=True, slots=True)
class Done:
    workflow_id: str
    ok: bool


RunOne = Callable[[], Awaitable[Done]]


@dataclass(kw_only=True)
class Block:
    """One measured block of sagas of one scenario."""

    latencies: list[float] = field(default_factory=list)
    workflow_ids: list[str] = field(default_factory=list)
    failures: int = 0
    elapsed_s: float = 0.0
    worker_cpu_s: float = 0.0
    server_cpu_s: float = 0.0
    worker_peak_mb: float = 0.0

    @property
    def tput(self) -> float:
        return len(self.latencies) / self.elapsed_s


class Probe:
    """CPU and peak memory of the worker (and the Temporal server) around each block."""

    def __init__(self, worker_pid: int, server_pid: int | None) -> None:
        self.worker_pid = worker_pid
        self.server_pid = server_pid
        self.peak_resettable = reset_peak(worker_pid)

    def _server_cpu(self) -> float:
        return sample(self.server_pid).cpu_s if self.server_pid else 0.0

    async def measure(self, block: Block, load: Awaitable[None]) -> Block:
        reset_peak(self.worker_pid)
        worker0, server0, t0 = (
            sample(self.worker_pid).cpu_s,
            self._server_cpu(),
            time.perf_counter(),
        )
        await load
        block.elapsed_s = time.perf_counter() - t0
        after = sample(self.worker_pid)
        block.worker_cpu_s = after.cpu_s - worker0
        block.server_cpu_s = self._server_cpu() - server0
        block.worker_peak_mb = after.hwm_mb
        return block


async def _timed(run_one: RunOne, block: Block, started: float) -> None:
    try:
        done = await run_one()
    except Exception as err:
        block.failures += 1
        print(f"bench: a saga failed: {type(err).__name__}: {err}", file=sys.stderr, flush=True)
        return
    block.latencies.append(time.perf_counter() - started)
    block.workflow_ids.append(done.workflow_id)
    if not done.ok:
        block.failures += 1


async def closed_loop(probe: Probe, run_one: RunOne, n: int, concurrency: int) -> Block:
    """`n` sagas, `concurrency` at a time: each lane starts the next when its saga ends."""
    block = Block()
    remaining = n

    async def lane() -> None:
        nonlocal remaining
        while remaining > 0:
            remaining -= 1
            await _timed(run_one, block, time.perf_counter())

    async def load() -> None:
        await asyncio.gather(*(lane() for _ in range(min(concurrency, n))))

    return await probe.measure(block, load())


async def open_loop(probe: Probe, run_one: RunOne, n: int, rate: float) -> Block:
    """`n` sagas arriving every 1/rate s whatever the backlog; latency from the planned arrival."""
    block = Block()

    async def load() -> None:
        start = time.perf_counter()
        tasks: list[asyncio.Task[None]] = []
        for i in range(n):
            planned = start + i / rate
            await asyncio.sleep(max(0.0, planned - time.perf_counter()))
            tasks.append(asyncio.create_task(_timed(run_one, block, planned)))
        await asyncio.gather(*tasks)

    return await probe.measure(block, load())
