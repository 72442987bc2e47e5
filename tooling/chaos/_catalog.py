"""The saga types a chaos run launches besides the transfer, and how each request is drawn.

Every type gets a builder here; `CATALOG` is the one place a new saga type joins the mix.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum

from pydantic import JsonValue

from sagas.fees import FEE_COLLECTION
from sagas.foundations import Money
from sagas.fx import FX_TRANSFER
from sagas.payouts import EXTERNAL_PAYOUT, PAYOUT_BATCH
from sagas.sweep import EOD_SWEEP

Request = dict[str, JsonValue]
"""A request body without its idempotency key, as `FundsagaClient.start` takes it."""

FX_PAIRS = (("EUR", "USD"), ("USD", "EUR"))
"""Pairs the built-in worker's DEMO_RATES quote, between the run's currencies."""
BATCH_ITEMS = (2, 5)
"""Fewest and most payouts in one batch."""
BATCH_CONCURRENCY = 2
SWEEP_THRESHOLDS = (0, 50_000, 100_000, 250_000)
"""Minor units a sweep keeps: all, half, about all and more than an account opens with."""
SETTLE_WAIT_SECONDS = 3
"""How long a payout waits for its settlement callback before asking the provider."""
PROVIDER_TIMEOUT_SECONDS = 1.0
"""How long a worker waits for the provider; accept-then-timeout answers later than this."""


class Beneficiary(StrEnum):
    """A payout's beneficiary at the simulator, named after how the simulator treats it."""

    SETTLES = "chaos-ben-settles"  # accepted, settled, one callback
    CALLBACK_TWICE = "chaos-ben-callback-twice"  # settled, the callback duplicated
    CALLBACK_LOST = "chaos-ben-callback-lost"  # settled, no callback: the saga asks
    DECLINED = "chaos-ben-declined"  # declined at authorize: compensates, never submitted
    LATE_ANSWER = "chaos-ben-late-answer"  # recorded, answered too late: the inquiry finds it
    RATE_LIMITED = "chaos-ben-rate-limited"  # 429 twice with Retry-After, then settled


SCENARIOS: Mapping[Beneficiary, Mapping[str, object]] = {
    Beneficiary.SETTLES: {"behaviour": "settle-callback", "callbacks": 1},
    Beneficiary.CALLBACK_TWICE: {"behaviour": "settle-callback", "callbacks": 2},
    Beneficiary.CALLBACK_LOST: {"behaviour": "settle-callback", "callbacks": 0},
    Beneficiary.DECLINED: {"behaviour": "decline", "reason": "chaos: beneficiary refused"},
    Beneficiary.LATE_ANSWER: {
        "behaviour": "accept-then-timeout",
        "delay_seconds": PROVIDER_TIMEOUT_SECONDS * 2,
        "callbacks": 1,
    },
    Beneficiary.RATE_LIMITED: {
        "behaviour": "rate-limit",
        "limited": 2,
        "retry_after": 1,
        "callbacks": 1,
    },
}
"""What the simulator is told per beneficiary (POST /scenarios with `account`)."""


def _fee(rng: random.Random, pool: Mapping[str, list[str]], _: int) -> Request:
    code = rng.choice(sorted(pool))
    fee = rng.choice((50, 150, 1_000, 2_500))
    return {
        "customer_account": rng.choice(pool[code]),
        "currency": code,
        "fee": Money.of(fee, code).amount_text(),
        "tax": Money.of(fee // 5, code).amount_text(),
        "reference": "chaos fee",
    }


def _fx(rng: random.Random, pool: Mapping[str, list[str]], _: int) -> Request:
    source, target = rng.choice(FX_PAIRS)
    amount = rng.choice((100, 999, 5_000, 40_000))
    return {
        "source_account": rng.choice(pool[source]),
        "destination_account": rng.choice(pool[target]),
        "source_currency": source,
        "target_currency": target,
        "source_amount": Money.of(amount, source).amount_text(),
    }


def _payout(rng: random.Random, pool: Mapping[str, list[str]], nth: int) -> Request:
    code = rng.choice(sorted(pool))
    # In turn, so that even a short run meets every behaviour of the simulator.
    beneficiary = list(Beneficiary)[nth % len(Beneficiary)]
    return {
        "account": rng.choice(pool[code]),
        "beneficiary": beneficiary.value,
        "currency": code,
        "amount": Money.of(rng.choice((100, 700, 2_500)), code).amount_text(),
        "settle_wait_seconds": SETTLE_WAIT_SECONDS,
    }


def _batch(rng: random.Random, pool: Mapping[str, list[str]], nth: int) -> Request:
    # Each batch starts three behaviours on from the one before, so two batches of three
    # items already meet all six.
    first = nth * 3
    items: list[JsonValue] = [
        _payout(rng, pool, first + n) for n in range(rng.randint(*BATCH_ITEMS))
    ]
    return {"items": items, "concurrency": BATCH_CONCURRENCY}


def _sweep(rng: random.Random, pool: Mapping[str, list[str]], _: int) -> Request:
    code = rng.choice(sorted(pool))
    operating, treasury = rng.sample(pool[code], 2)
    return {
        "operating_account": operating,
        "treasury_account": treasury,
        "currency": code,
        "threshold": Money.of(rng.choice(SWEEP_THRESHOLDS), code).amount_text(),
        "reference": "chaos sweep",
    }


Builder = Callable[[random.Random, Mapping[str, list[str]], int], Request]


@dataclass(frozen=True)
class CatalogType:
    saga_type: str
    build: Builder
    """A request drawn from the accounts of each currency, for the type's n-th saga."""


CATALOG: Mapping[str, CatalogType] = {
    t.saga_type: t
    for t in (
        CatalogType(FEE_COLLECTION, _fee),
        CatalogType(FX_TRANSFER, _fx),
        CatalogType(EXTERNAL_PAYOUT, _payout),
        # A batch's items are payouts: _plan.batch_items expands them for every payout check.
        CatalogType(PAYOUT_BATCH, _batch),
        CatalogType(EOD_SWEEP, _sweep),
    )
}
