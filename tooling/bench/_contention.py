"""Contention shapes at saga level: N transfer sagas per shape through the ENGINE worker, how
fast Temporal accepts their starts and how fast they complete, and proof that none was lost."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence

from temporalio.client import Client

from sagas import parse_money
from sagas.client import FundsagaClient
from sagas.engine import SagaStatus
from sagas.ledger import Ledger
from sagas.transfer import TransferRequest
from tooling.bench._ledger_append_writer import Shape, pair_of
from tooling.bench._metrics import latency
from tooling.bench._results import Contention
from tooling.bench._setup import AMOUNT, BENCH_SIGNER, CURRENCY, OPENING_BALANCE

SPREAD_ACCOUNTS = 64
"""Spread: saga i moves between the i-th pair modulo this many pairs."""


def _requests(shape: Shape, n: int, run: str) -> list[TransferRequest]:
    requests = []
    for i in range(n):
        source, dest = pair_of(shape, i % SPREAD_ACCOUNTS)
        requests.append(
            TransferRequest.parse(
                {
                    "idempotency_key": f"shape-{run}-{shape.value}-{i}",
                    "source_account": f"{run}-{source}",
                    "destination_account": f"{run}-{dest}",
                    "currency": CURRENCY,
                    "amount": AMOUNT,
                }
            )
        )
    return requests


def _open(ledger: Ledger, requests: Sequence[TransferRequest]) -> None:
    """Every source funded for far more than its transfers; no transfer is refused for funds."""
    opening = parse_money(OPENING_BALANCE, CURRENCY)
    for account in dict.fromkeys(r.source_account for r in requests):
        ledger.open_account(account, CURRENCY, opening_balance=opening)
    for account in dict.fromkeys(r.destination_account for r in requests):
        ledger.open_account(account, CURRENCY)


async def _drive(
    client: FundsagaClient, requests: Sequence[TransferRequest], concurrency: int
) -> tuple[list[float], list[float], list[float], Counter[str], list[str]]:
    """`concurrency` lanes start the sagas back to back; each saga's outcome is awaited beside.
    Returns (start acknowledged, closed, start-to-close latency) offsets from the first start,
    the closed statuses and the saga ids."""
    t0 = time.perf_counter()
    accepted: list[float] = []
    closed: list[float] = []
    latencies: list[float] = []
    statuses: Counter[str] = Counter()
    saga_ids: list[str] = []
    waiters: list[asyncio.Task[None]] = []
    queue = list(reversed(requests))

    async def finish(request: TransferRequest, sent: float) -> None:
        try:
            outcome = await client.saga("transfer", request.idempotency_key).outcome()
            statuses[outcome.status.value] += 1
        except Exception as err:
            statuses[f"error: {type(err).__name__}"] += 1
        now = time.perf_counter()
        closed.append(now - t0)
        latencies.append(now - sent)

    async def lane() -> None:
        while queue:
            request = queue.pop()
            sent = time.perf_counter()
            handle = await client.start("transfer", request)
            accepted.append(time.perf_counter() - t0)
            saga_ids.append(handle.id)
            waiters.append(asyncio.create_task(finish(request, sent)))

    await asyncio.gather(*(lane() for _ in range(min(concurrency, len(requests)))))
    await asyncio.gather(*waiters)
    return accepted, closed, latencies, statuses, saga_ids


def _journal(ledger: Ledger, saga_ids: set[str]) -> tuple[int, Counter[str]]:
    """Sagas whose journal entries net to the transfer (source -AMOUNT, destination +AMOUNT),
    and how many of them touched each customer account."""
    net: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for entry in ledger.entries():
        if entry.saga_id in saga_ids:
            for posting in entry.postings:
                net[entry.saga_id][posting.account_id] += posting.amount.minor
    amount = parse_money(AMOUNT, CURRENCY).minor
    applied = 0
    touched: Counter[str] = Counter()
    for effects in net.values():
        moved = {a: v for a, v in effects.items() if v != 0}
        if sorted(moved.values()) == [-amount, amount]:
            applied += 1
            touched.update(moved.keys())
    return applied, touched


async def contention_shapes(
    temporal: Client, queue: str, database_url: str, database: str, n: int, concurrency: int
) -> list[Contention]:
    """Each shape in turn: its accounts opened, its sagas driven, then checked in the journal."""
    ledger = Ledger.from_url(database_url, signer=BENCH_SIGNER)
    client = FundsagaClient(temporal, queue)
    results = []
    try:
        for shape in Shape:
            run = f"c{uuid.uuid4().hex[:6]}"
            requests = _requests(shape, n, run)
            _open(ledger, requests)
            started = time.perf_counter()
            accepted, closed, seconds, statuses, ids = await _drive(client, requests, concurrency)
            completed = statuses.get(SagaStatus.COMPLETED.value, 0)
            applied, touched = _journal(ledger, set(ids))
            busiest, busiest_sagas = touched.most_common(1)[0] if touched else ("-", 0)
            results.append(
                Contention(
                    shape=shape.value,
                    database=database,
                    sagas=n,
                    concurrency=concurrency,
                    accepted_per_s=round(len(accepted) / max(accepted, default=1.0), 2),
                    applied_per_s=round(completed / max(closed, default=1.0), 2),
                    latency=latency(seconds),
                    statuses=dict(statuses),
                    journal_applied=applied,
                    busiest_account=busiest.removeprefix(f"{run}-"),
                    busiest_sagas=busiest_sagas,
                    invariant_findings=ledger.check_invariants(),
                    elapsed_s=round(time.perf_counter() - started, 1),
                )
            )
    finally:
        ledger.close_connections()
    return results
