"""What the journal chain costs per posting: ledger transfers alone, 1 and 2 writer processes.

``python -m tooling.bench.chain_cost --url postgresql://postgres@127.0.0.1/postgres``
creates a scratch database beside the one named (or a SQLite file for ``sqlite:///``), opens
account pairs, and has each writer process run its share of transfers on pairs of its own, so
the only lock the writers share is the journal head. Every transfer is one entry with two
postings; the figure reported is wall time per posting, and transfers per second.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import create_engine, make_url
from sqlalchemy.pool import NullPool

from sagas.audit import SigningKey
from sagas.foundations import Money, upgrade_database
from sagas.ledger import Ledger

PAIRS_PER_WRITER = 8
OPENING = 1_000_000_00


@dataclass(frozen=True)
class ChainCost:
    writers: int
    transfers: int
    seconds: float

    @property
    def postings(self) -> int:
        return self.transfers * 2

    @property
    def microseconds_per_posting(self) -> float:
        return self.seconds / self.postings * 1e6

    @property
    def transfers_per_second(self) -> float:
        return self.transfers / self.seconds


def measure(url: str, writers: int, transfers: int) -> ChainCost:
    """Run `transfers` transfers split over `writers` processes on the migrated `url`."""
    signer = SigningKey.generate()
    ledger = Ledger.from_url(url, signer=signer)
    for writer in range(writers):
        for pair in range(PAIRS_PER_WRITER):
            ledger.open_account(
                f"w{writer}-src-{pair}", "EUR", opening_balance=Money.of(OPENING, "EUR")
            )
            ledger.open_account(f"w{writer}-dst-{pair}", "EUR")
    ledger.close_connections()
    share = transfers // writers
    context = multiprocessing.get_context("spawn")
    ready = context.Barrier(writers + 1)
    processes = [
        context.Process(target=_write, args=(url, signer.private_pem(), writer, share, ready))
        for writer in range(writers)
    ]
    for process in processes:
        process.start()
    ready.wait()
    started = time.perf_counter()
    for process in processes:
        process.join()
        if process.exitcode != 0:
            raise RuntimeError(f"writer {process.name} exited with {process.exitcode}")
    cost = ChainCost(writers, share * writers, time.perf_counter() - started)
    _check_chain(url, expected_entries=len(processes) * PAIRS_PER_WRITER + cost.transfers)
    return cost


def _check_chain(url: str, expected_entries: int) -> None:
    """Sealed after the writers: the chain must be whole and as long as written."""
    ledger = Ledger.from_url(url)
    try:
        head = ledger.seal()
        findings = ledger.check_invariants()
    finally:
        ledger.close_connections()
    if findings or head.sequence != expected_entries:
        raise RuntimeError(f"chain of {head.sequence} entries, not {expected_entries}: {findings}")


def _write(url: str, pem: bytes, writer: int, count: int, ready: object) -> None:
    from cryptography.hazmat.primitives.serialization import load_pem_private_key

    key = load_pem_private_key(pem, password=None)
    ledger = Ledger.from_url(url, signer=SigningKey(key))  # type: ignore[arg-type]
    ledger.account(f"w{writer}-src-0")  # connect before the clock starts
    ready.wait()  # type: ignore[attr-defined]
    for n in range(count):
        pair = n % PAIRS_PER_WRITER
        ledger.transfer(
            f"w{writer}-t{n}",
            f"w{writer}-src-{pair}",
            f"w{writer}-dst-{pair}",
            Money.of(1, "EUR"),
            saga_id=f"w{writer}-s{n}",
        )
    ledger.close_connections()


@contextmanager
def scratch_database(url: str) -> Iterator[str]:
    """A fresh, migrated database next to `url`, dropped afterwards."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        with tempfile.TemporaryDirectory() as directory:
            scratch = f"sqlite:///{Path(directory) / 'chain-cost.db'}"
            upgrade_database(scratch)
            yield scratch
        return
    name = f"fundsaga_chain_cost_{uuid.uuid4().hex[:12]}"
    server = parsed.set(drivername="postgresql+psycopg")
    admin = create_engine(server, isolation_level="AUTOCOMMIT", poolclass=NullPool)
    with admin.connect() as connection:
        connection.exec_driver_sql(f'CREATE DATABASE "{name}"')
    scratch = server.set(database=name).render_as_string(hide_password=False)
    try:
        upgrade_database(scratch)
        yield scratch
    finally:
        with admin.connect() as connection:
            connection.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        admin.dispose()


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tooling.bench.chain_cost", description=__doc__)
    parser.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--transfers", type=int, default=2_000)
    parser.add_argument("--writers", type=int, nargs="+", default=[1, 2])
    args = parser.parse_args(argv)
    print("writers  transfers  postings  seconds  us/posting  transfers/s")
    for writers in args.writers:
        with scratch_database(args.url) as url:
            cost = measure(url, writers, args.transfers)
        print(
            f"{cost.writers:7d}  {cost.transfers:9d}  {cost.postings:8d}  {cost.seconds:7.2f}"
            f"  {cost.microseconds_per_posting:10.0f}  {cost.transfers_per_second:11.0f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
