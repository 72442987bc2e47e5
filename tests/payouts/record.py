"""`python -m tests.payouts.record`: record the payout's and the payout batch's replay histories.

Against the provider simulator, on the time-skipping server: `settle` waits an hour for a
callback that no recording sends, which a dev server would spend in real time.
"""

from __future__ import annotations

import asyncio
import logging
import os
import tempfile
from pathlib import Path

from sagas.testing import ReplayGuard, time_skipping_environment
from tests.payouts.batch_histories import DECLINES, SETTLES, record_batches
from tests.payouts.scenario import PAYOUT_SCENARIO
from tests.provider.http import call
from tooling.provider import ProviderProcess

HISTORIES = Path(__file__).parent / "histories"
SETTLES_AT_ONCE = {
    "key": "*",
    "behaviour": "settle-callback",
    "callbacks": 0,
    "settle_after_seconds": 0,
}


async def record(webhook_secret: str) -> list[Path]:
    async with time_skipping_environment() as env:
        written = await ReplayGuard(PAYOUT_SCENARIO, HISTORIES).record(env)
    # A server of their own, shared with no saga recorded above.
    async with time_skipping_environment() as env:
        with tempfile.TemporaryDirectory() as scratch:
            return written + await record_batches(env, HISTORIES, Path(scratch), webhook_secret)


def main() -> None:
    logging.getLogger("temporalio.activity").setLevel(logging.ERROR)
    with ProviderProcess() as provider:
        os.environ["FUNDSAGA_PROVIDER_URL"] = provider.url
        for scenario in (SETTLES_AT_ONCE, SETTLES, DECLINES):
            call(f"{provider.url}/scenarios", "POST", scenario)
        for path in asyncio.run(record(provider.webhook_secret)):
            print(f"recorded {path}")


if __name__ == "__main__":
    main()
