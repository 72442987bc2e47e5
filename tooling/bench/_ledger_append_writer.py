"""One ledger append measurement, run as a script inside the source tree it measures.

``python _ledger_append_writer.py SPEC_JSON OUT_JSON`` with ``PYTHONPATH=<tree>``: the tree's
`scratch_database` makes and migrates a scratch PostgreSQL database with the tree's
migrations, the accounts are opened, `processes` spawned processes run the writers as threads
(one pooled connection each), all start together at a barrier, and each counts the entries it
completes in the window after the warm-up. Then `check_invariants()` reads the whole ledger.
``... --profile SERVER_URL N OUT_TEXT`` instead profiles one signed writer for N transfers.

Only public names that today's ledger and its rewrite both have are used, so that a baseline
checkout runs this same file (see ledger_append.py).
"""

from __future__ import annotations

import contextlib
import cProfile
import importlib.util
import io
import json
import multiprocessing
import pstats
import resource
import sys
import threading
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from enum import StrEnum
from multiprocessing.queues import Queue
from multiprocessing.synchronize import Barrier
from pathlib import Path
from threading import BrokenBarrierError
from typing import TypedDict

import sagas
from sagas.audit import SigningKey
from sagas.foundations import Money, make_engine
from sagas.ledger import Ledger, clearing_account_id

CURRENCY = "EUR"
OPENING = 1_000_000_00
ONE = Money.of(1, CURRENCY)
START_TIMEOUT_S = 300.0
"""Spawning the writer processes and connecting them, before the barrier."""


class Route(StrEnum):
    CLEARING = "clearing"  # two entries a transfer: source -> @clearing:EUR -> destination
    DIRECT = "direct"  # one entry a transfer: source -> destination


class Shape(StrEnum):
    SPREAD = "spread"  # each writer its own source and destination
    HOT_SOURCE = "hot-source"  # every writer debits one source
    HOT_DESTINATION = "hot-destination"  # every writer credits one destination
    HOT_PAIR = "hot-pair"  # every writer moves between the same two accounts


@dataclass(frozen=True)
class Spec:
    server_url: str
    """The PostgreSQL server; the scratch database is made beside the database it names."""
    writers: int
    processes: int
    route: Route
    shape: Shape
    signed: bool
    seconds: float
    warmup: float

    @classmethod
    def from_json(cls, text: str) -> Spec:
        fields = json.loads(text)
        return cls(**{**fields, "route": Route(fields["route"]), "shape": Shape(fields["shape"])})


@dataclass(frozen=True)
class Result:
    entries: int
    """Entries completed inside the measured window, over all writers."""
    seconds: float
    cpu_seconds: float
    """User and system CPU of the writer processes inside the window."""
    busiest_account: str
    busiest_entries: int
    """Entries of the window that touched the busiest account."""
    invariant_findings: list[str]
    """What check_invariants() found after the run: empty when the ledger is sound."""
    sagas_path: str
    migrations_path: str
    """Where `sagas` and its migrations were imported from: the tree measured."""

    @property
    def rate(self) -> float:
        """Entries per second."""
        return self.entries / self.seconds


class Tally(TypedDict):
    """What one writer process counted in the window; errors name the writers that failed."""

    entries: int
    cpu_seconds: float
    touched: dict[str, int]
    errors: list[str]


def pair_of(shape: Shape, writer: int) -> tuple[str, str]:
    """The customer accounts a writer moves money between."""
    source = "hot-src" if shape in (Shape.HOT_SOURCE, Shape.HOT_PAIR) else f"src-{writer}"
    dest = "hot-dst" if shape in (Shape.HOT_DESTINATION, Shape.HOT_PAIR) else f"dst-{writer}"
    return source, dest


def legs_of(route: Route, source: str, dest: str) -> list[tuple[str, str]]:
    """The entries of one transfer, in order."""
    if route == Route.DIRECT:
        return [(source, dest)]
    clearing = clearing_account_id(CURRENCY)
    return [(source, clearing), (clearing, dest)]


def measure(spec: Spec) -> Result:
    # The tree's own: it migrates with the tree's migrations. Imported here, not at the top,
    # so that the spawned writer processes do not import the whole bench package.
    from tooling.bench.chain_cost import scratch_database

    signer = SigningKey.generate() if spec.signed else None
    with scratch_database(spec.server_url) as url:
        _open_accounts(url, signer, spec.shape, spec.writers)
        tallies = _run_writers(url, None if signer is None else signer.private_pem(), spec)
        checker = Ledger.from_url(url)
        try:
            findings = checker.check_invariants()
        finally:
            checker.close_connections()
    touched: Counter[str] = Counter()
    for tally in tallies:
        touched.update(tally["touched"])
    busiest, busiest_entries = touched.most_common(1)[0] if touched else ("-", 0)
    sagas_path, migrations_path = _provenance()
    return Result(
        entries=sum(tally["entries"] for tally in tallies),
        seconds=spec.seconds,
        cpu_seconds=sum(tally["cpu_seconds"] for tally in tallies),
        busiest_account=busiest,
        busiest_entries=busiest_entries,
        invariant_findings=findings,
        sagas_path=sagas_path,
        migrations_path=migrations_path,
    )


def _provenance() -> tuple[str, str]:
    found = importlib.util.find_spec("sagas.migrations")
    locations = [] if found is None else list(found.submodule_search_locations or [])
    migrations = str(Path(locations[0]).resolve()) if locations else ""
    return str(Path(sagas.__file__).resolve().parent), migrations


def _open_accounts(url: str, signer: SigningKey | None, shape: Shape, writers: int) -> None:
    pairs = {pair_of(shape, writer) for writer in range(writers)}
    ledger = Ledger.from_url(url, signer=signer)
    try:
        for source in sorted({source for source, _ in pairs}):
            ledger.open_account(source, CURRENCY, opening_balance=Money.of(OPENING, CURRENCY))
        for dest in sorted({dest for _, dest in pairs}):
            ledger.open_account(dest, CURRENCY)
    finally:
        ledger.close_connections()


def _run_writers(url: str, pem: bytes | None, spec: Spec) -> list[Tally]:
    """Writer w runs in process w % processes; every process reports one tally."""
    context = multiprocessing.get_context("spawn")
    start = context.Barrier(spec.processes + 1)
    tallies: Queue[Tally] = context.Queue()
    processes = [
        context.Process(
            target=_write_in_process,
            args=(url, pem, spec, list(range(p, spec.writers, spec.processes)), start, tallies),
        )
        for p in range(spec.processes)
    ]
    for process in processes:
        process.start()
    with contextlib.suppress(BrokenBarrierError):  # a process failed: its tally says why
        start.wait(START_TIMEOUT_S)
    deadline = time.monotonic() + START_TIMEOUT_S + spec.warmup + spec.seconds
    received = [tallies.get(timeout=max(0.0, deadline - time.monotonic())) for _ in processes]
    for process in processes:
        process.join()
    errors = [error for tally in received for error in tally["errors"]]
    if errors:
        raise RuntimeError(f"{len(errors)} writers failed; the first: {errors[0]}")
    return received


def _write_in_process(
    url: str,
    pem: bytes | None,
    spec: Spec,
    writers: list[int],
    start: Barrier,
    tallies: Queue[Tally],
) -> None:
    try:
        tally = _write_together(url, pem, spec, writers, start)
    except Exception as exc:
        start.abort()
        tally = Tally(entries=0, cpu_seconds=0.0, touched={}, errors=[f"process: {exc!r}"])
    tallies.put(tally)


def _write_together(
    url: str, pem: bytes | None, spec: Spec, writers: list[int], start: Barrier
) -> Tally:
    ledger = Ledger(make_engine(url), signer=_signer(pem))
    window = _Window()
    threads = [_Writer(ledger, writer, spec, window) for writer in writers]
    for thread in threads:
        thread.start()
    start.wait(START_TIMEOUT_S)
    window.open(spec.warmup, spec.seconds)
    _sleep_until(window.start)
    cpu_before = _cpu_seconds()
    _sleep_until(window.end)
    cpu_seconds = _cpu_seconds() - cpu_before
    for thread in threads:
        thread.join()
    ledger.close_connections()
    touched: Counter[str] = Counter()
    for thread in threads:
        touched.update(thread.touched)
    return Tally(
        entries=sum(thread.entries for thread in threads),
        cpu_seconds=cpu_seconds,
        touched=dict(touched),
        errors=[thread.error for thread in threads if thread.error],
    )


class _Window:
    """When the writers start, and when counting starts and stops (monotonic clock)."""

    def __init__(self) -> None:
        self.opened = threading.Event()
        self.start = self.end = 0.0

    def open(self, warmup: float, seconds: float) -> None:
        self.start = time.monotonic() + warmup
        self.end = self.start + seconds
        self.opened.set()


class _Writer(threading.Thread):
    def __init__(self, ledger: Ledger, writer: int, spec: Spec, window: _Window) -> None:
        super().__init__(name=f"writer-{writer}", daemon=True)
        self.ledger, self.writer, self.window = ledger, writer, window
        self.legs = legs_of(spec.route, *pair_of(spec.shape, writer))
        self.entries = 0
        self.touched: Counter[str] = Counter()
        self.error = ""

    def run(self) -> None:
        self.window.opened.wait()
        try:
            self._write()
        except Exception as exc:  # reported by the process, which the bench then fails
            self.error = f"writer {self.writer}: {type(exc).__name__}: {exc}"

    def _write(self) -> None:
        n = 0
        while time.monotonic() < self.window.end:
            for leg, (source, dest) in enumerate(self.legs):
                key = f"w{self.writer}-{n}-{leg}"
                self.ledger.transfer(key, source, dest, ONE, saga_id=f"w{self.writer}-{n}")
                if self.window.start <= time.monotonic() < self.window.end:
                    self.entries += 1
                    self.touched.update((source, dest))
            n += 1


def _signer(pem: bytes | None) -> SigningKey | None:
    if pem is None:
        return None
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    key = load_pem_private_key(pem, password=None)
    if not isinstance(key, Ed25519PrivateKey):
        raise TypeError(f"the signing key is {type(key).__name__}, not Ed25519")
    return SigningKey(key)


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _sleep_until(moment: float) -> None:
    time.sleep(max(0.0, moment - time.monotonic()))


def profile(server_url: str, transfers: int) -> str:
    """Top costs (CPU time) of one signed writer posting `transfers` transfers via clearing."""
    from tooling.bench.chain_cost import scratch_database

    signer = SigningKey.generate()
    with scratch_database(server_url) as url:
        _open_accounts(url, signer, Shape.SPREAD, 1)
        ledger = Ledger.from_url(url, signer=signer)
        legs = legs_of(Route.CLEARING, *pair_of(Shape.SPREAD, 0))
        profiler = cProfile.Profile(time.process_time)
        started, cpu_before = time.perf_counter(), time.process_time()
        for n in range(transfers):
            if n == transfers // 10:  # the first tenth warms up, unprofiled
                profiler.enable()
                started, cpu_before = time.perf_counter(), time.process_time()
            for leg, (source, dest) in enumerate(legs):
                ledger.transfer(f"p-{n}-{leg}", source, dest, ONE, saga_id=f"p-{n}")
        profiler.disable()
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu_before
        ledger.close_connections()
    entries = (transfers - transfers // 10) * len(legs)
    out = io.StringIO()
    out.write(f"{entries} entries profiled (CPU timer): {1000 * wall / entries:.2f} ms wall, ")
    out.write(f"{1000 * cpu / entries:.2f} ms CPU per entry with the profiler on\n")
    stats = pstats.Stats(profiler, stream=out).sort_stats("cumulative")
    stats.print_stats(r"/sagas/")  # the ledger's own functions, then the top costs of all
    stats.strip_dirs().sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(40)
    return out.getvalue()


def main(argv: Sequence[str]) -> int:
    if argv[0] == "--profile":
        server_url, transfers, out = argv[1], int(argv[2]), Path(argv[3])
        out.write_text(profile(server_url, transfers))
        return 0
    result = measure(Spec.from_json(argv[0]))
    Path(argv[1]).write_text(json.dumps(asdict(result)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
