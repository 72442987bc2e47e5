"""Entry of the benchmark worker process: ``python -m tooling.bench._worker_main``.

Reads its spec as one JSON line on standard input, prints ``ready`` once every worker polls,
and stops when its standard input closes.
"""

import asyncio
import sys

from tooling.bench._worker_proc import WorkerSpec, running_workers


async def _serve(spec: WorkerSpec) -> None:
    async with running_workers(spec):
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.read)


if __name__ == "__main__":
    asyncio.run(_serve(WorkerSpec.from_json(sys.stdin.readline())))
