"""`python -m tooling.chaos`: the Jepsen-style bank test over every built-in saga type; exit 1
when an invariant breaks."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import random
import sys
import tempfile
from pathlib import Path

from sagas.testing import postgres_cluster
from tooling.chaos._outage import ClusterOutage
from tooling.chaos._plan import ChaosConfig, make_plan
from tooling.chaos._report import render
from tooling.chaos._runner import ChaosRun


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tooling.chaos", description=__doc__)
    defaults = ChaosConfig()
    parser.add_argument("--transfers", type=int, default=defaults.transfers)
    parser.add_argument("--fees", type=int, default=defaults.fees, help="fee collections")
    parser.add_argument("--fx", type=int, default=defaults.fx_transfers, help="FX transfers")
    parser.add_argument(
        "--payouts", type=int, default=defaults.payouts, help="payouts to the provider simulator"
    )
    parser.add_argument(
        "--batches",
        type=int,
        default=defaults.batches,
        help="payout batches, each of a few payouts to the provider simulator",
    )
    parser.add_argument("--sweeps", type=int, default=defaults.sweeps, help="end-of-day sweeps")
    parser.add_argument("--kills", type=int, default=50)
    parser.add_argument("--restarts", type=int, default=3)
    parser.add_argument(
        "--outage-seconds",
        type=float,
        default=defaults.outage_seconds,
        help="one database outage mid-run this long (0: none)",
    )
    parser.add_argument(
        "--terminations",
        type=int,
        default=defaults.terminations,
        help="transfers terminated from outside mid-run",
    )
    parser.add_argument("--seed", type=int, default=None, help="default: a random one, printed")
    database = parser.add_mutually_exclusive_group()
    database.add_argument("--database-url", help="default: a SQLite file in the work directory")
    database.add_argument(
        "--postgres",
        action="store_true",
        help="on a PostgreSQL cluster the run starts itself, and crashes for the outage",
    )
    parser.add_argument("--workdir", type=Path, help="default: a new temporary directory")
    args = parser.parse_args()
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1, 10**6)
    config = ChaosConfig(
        transfers=args.transfers,
        fees=args.fees,
        fx_transfers=args.fx,
        payouts=args.payouts,
        batches=args.batches,
        sweeps=args.sweeps,
        kills=args.kills,
        restarts=args.restarts,
        outage_seconds=args.outage_seconds,
        terminations=args.terminations,
        seed=seed,
    )
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="fundsaga-chaos-"))
    workdir.mkdir(parents=True, exist_ok=True)
    mix = ", ".join(f"{n} {name}" for name, n in config.counts().items())
    print(f"chaos run: seed {seed}, {mix}, work directory {workdir}")
    with contextlib.ExitStack() as stack:
        if args.postgres:
            cluster = stack.enter_context(postgres_cluster())
            run = ChaosRun(make_plan(config), cluster.url(), workdir, ClusterOutage(cluster))
        else:
            url = args.database_url or f"sqlite:///{workdir / 'ledger.db'}"
            run = ChaosRun(make_plan(config), url, workdir)
        report = asyncio.run(run.run())
    print(render(report), end="")
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
