"""How fast the ledger appends entries on PostgreSQL as writers are added: today's code beside a
baseline's, measured in the same run.

``python -m tooling.bench.ledger_append --baseline main~5 --json ledger-append.json``
(``make bench-ledger BASELINE=main~5``). Every figure is entries per second, one entry being
one `Ledger.transfer` call, through the public `sagas.ledger.Ledger` API only:

- writers 1, 4, 16, 64, signed and with tamper evidence off (no signer): each transfer is two
  calls, customer source -> `@clearing:EUR` -> customer destination, and each writer has its
  own pair of customer accounts;
- Blnk's four contention shapes at 16 writers, customer -> customer: spread, hot source, hot
  destination, hot pair, with the busiest account's entries per second;
- one writer process against two, one thread each, and what an entry costs in the first.

How writers run: W writers are spread over P = min(W, --processes) spawned processes, writer
w in process w % P, each writer a thread of its process; a process's threads share one
`Ledger` on `make_engine` (each thread holds its own pooled connection while it posts).
All processes wait at one barrier; the window then opens after --warmup seconds and lasts
--seconds, and a writer counts each entry that completes inside it, always finishing the
transfer it started. Any failed call fails the run. Each measurement has its own scratch
database, made and migrated by chain_cost's `scratch_database`, and after the writers stop
`check_invariants()` must find nothing (the chain whole, the balances what was posted).

Before and after: with --baseline REF, `git worktree add --detach` checks REF out in a
temporary directory, and every measurement runs once with that tree's code and once with
this one's, back to back. Both run the same file, _ledger_append_writer.py, as a script with
PYTHONPATH=<tree>, so the tree's `sagas` writes and the tree's migrations make the schema;
the run refuses figures from a script that imported another tree's code. The worktree is
removed afterwards. With --rounds N every measurement runs N times per tree, each round going
through all of them (a change in the machine's load then falls on every figure alike), and the
round of highest throughput is reported, other work on the machine only ever slowing a round
down; the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from contextlib import ExitStack
from pathlib import Path

from tooling.bench._ledger_append_report import Figures, Measurement, as_json, plan, text
from tooling.bench._ledger_append_trees import Tree, baseline_tree, current_tree, profile_in, run_in
from tooling.bench._ledger_append_writer import Result, Route, Shape, Spec

DEFAULT_URL = "postgresql://postgres@127.0.0.1:5432/postgres"


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m tooling.bench.ledger_append",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add = parser.add_argument
    add("--url", default=DEFAULT_URL, help="PostgreSQL server; scratch databases are made on it")
    add("--baseline", metavar="REF", help="git ref measured beside this tree, e.g. main~5")
    add("--seconds", type=float, default=5.0, help="measured window per measurement")
    add("--warmup", type=float, default=1.0, help="seconds of writing before the window")
    add("--rounds", type=int, default=1, help="runs per measurement and tree; the best counts")
    add("--writers", type=int, nargs="+", default=[1, 4, 16, 64])
    add("--processes", type=int, default=2, help="at most this many writer processes")
    add("--shape-writers", type=int, default=16, help="writers of the contention shapes")
    add("--json", type=Path, metavar="PATH", help="also write every figure here")
    add(
        "--profile",
        type=int,
        metavar="N",
        help="instead: profile one signed writer for N transfers (cProfile, CPU time) per tree",
    )
    return parser


def measure(trees: Sequence[Tree], measurements: Sequence[Measurement], rounds: int) -> Figures:
    """Each distinct spec once per tree and round, the trees back to back in turns; a round
    runs every spec, so that a change in the machine's load spreads over all of them."""
    results: dict[str, dict[Spec, list[Result]]] = {tree.name: {} for tree in trees}
    loads: list[float] = []
    specs = list(dict.fromkeys(m.spec for m in measurements))
    for round_ in range(rounds):
        for n, spec in enumerate(specs, 1):
            rates = []
            for tree in trees if (round_ + n) % 2 else reversed(trees):
                result = run_in(tree, spec)
                if result.invariant_findings:
                    raise RuntimeError(
                        f"{tree.name} ledger unsound after {_label(spec)}: "
                        f"{result.invariant_findings}"
                    )
                results[tree.name].setdefault(spec, []).append(result)
                loads.append(os.getloadavg()[0])
                rates.append(f"{tree.name} {result.rate:.0f}")
            where = f"round {round_ + 1}/{rounds}, {n}/{len(specs)}"
            print(f"[{where}] {_label(spec)}: {', '.join(rates)} entries/s", flush=True)
    versions = {tree.name: tree.version for tree in trees}
    return Figures(versions, list(measurements), results, loads)


def _label(spec: Spec) -> str:
    signed = "signed" if spec.signed else "unsigned"
    where = f"{spec.writers} writers in {spec.processes} processes"
    return f"{where}, {spec.shape}, {spec.route}, {signed}"


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with ExitStack() as stack:
        trees = [current_tree()]
        if args.baseline:
            trees.insert(0, stack.enter_context(baseline_tree(args.baseline)))
        if args.profile:
            for tree in trees:
                print(f"== {tree.name} {tree.version}\n{profile_in(tree, args.url, args.profile)}")
            return 0
        base = Spec(args.url, 1, 1, Route.CLEARING, Shape.SPREAD, True, args.seconds, args.warmup)
        measurements = plan(base, args.writers, args.processes, args.shape_writers)
        figures = measure(trees, measurements, args.rounds)
    window = f"{args.seconds:g} s windows after {args.warmup:g} s of warm-up"
    print(f"\nLedger append, {window}, best of {args.rounds} round(s)\n")
    print(text(figures))
    if args.json:
        args.json.write_text(json.dumps(as_json(figures), indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
