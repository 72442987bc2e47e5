"""A chaos run's schedule, derived from one seed: same seed, same transfers and faults."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

CURRENCIES = ("EUR", "USD")
ACCOUNTS_PER_CURRENCY = 8
OPENING_MINOR = 100_000
STEPS = ("reserve", "capture", "credit", "settle", "release")
PAYEE_INDEX = ACCOUNTS_PER_CURRENCY - 2
"""Per currency, the account that spends whatever it receives; the last one is frozen."""


@dataclass(frozen=True, kw_only=True)
class ChaosConfig:
    transfers: int = 5000
    kills: int = 50
    restarts: int = 3
    seed: int = 0
    workers: int = 2
    in_flight: int = 48
    db_fault_rate: float = 0.01
    """Chance that one SQL statement fails with an injected transient database error."""


@dataclass(frozen=True)
class PlannedTransfer:
    index: int
    source: str
    destination: str
    amount_minor: int
    currency: str


@dataclass(frozen=True)
class ChaosPlan:
    config: ChaosConfig
    transfers: tuple[PlannedTransfer, ...]
    kill_after: tuple[tuple[int, str], ...]
    """(launch index, "signal" | "after_commit"): kill a worker once that many are launched."""
    restart_after: tuple[int, ...]
    faults: str
    """FUNDSAGA_FAULTS for the workers: transient faults on some accounts' steps."""
    frozen: tuple[str, ...] = field(default=())
    spenders: tuple[Spender, ...] = field(default=())
    """Payees that spend all they can, all the time, while every transfer they are in fails
    to settle and compensates: a credit they could spend would be gone when it is taken back."""


@dataclass(frozen=True)
class Spender:
    payee: str
    shop: str
    """Where the payee's money goes: an account of the same currency."""


def account_ids() -> list[str]:
    return [f"chaos-{c.lower()}-{n}" for c in CURRENCIES for n in range(ACCOUNTS_PER_CURRENCY)]


def make_plan(config: ChaosConfig) -> ChaosPlan:
    rng = random.Random(config.seed)
    accounts = account_ids()
    frozen = (accounts[ACCOUNTS_PER_CURRENCY - 1],)
    spenders = _spenders(accounts)
    transfers = tuple(_transfer(rng, i, accounts) for i in range(config.transfers))
    marks = sorted(rng.sample(range(1, config.transfers), config.kills + config.restarts))
    rng.shuffle(marks)
    kills = sorted(marks[: config.kills])
    kill_after = tuple((at, rng.choice(("signal", "after_commit"))) for at in kills)
    return ChaosPlan(
        config=config,
        transfers=transfers,
        kill_after=kill_after,
        restart_after=tuple(sorted(marks[config.kills :])),
        faults=";".join([_faults(rng, accounts), *(_never_settles(s.payee) for s in spenders)]),
        frozen=frozen,
        spenders=spenders,
    )


def _spenders(accounts: list[str]) -> tuple[Spender, ...]:
    pools = [
        accounts[n : n + ACCOUNTS_PER_CURRENCY]
        for n in range(0, len(accounts), ACCOUNTS_PER_CURRENCY)
    ]
    return tuple(Spender(payee=pool[PAYEE_INDEX], shop=pool[0]) for pool in pools)


def _never_settles(account: str) -> str:
    """Every settle attempt fails transiently: the saga exhausts its retries and compensates."""
    return f"settle=transient@{account}"


def _transfer(rng: random.Random, index: int, accounts: list[str]) -> PlannedTransfer:
    currency = rng.choice(CURRENCIES)
    pool = [a for a in accounts if f"-{currency.lower()}-" in a]
    source, destination = rng.sample(pool, 2)
    if rng.random() < 0.05:
        destination = rng.choice([a for a in accounts if a not in pool])
    amount = rng.choice((100, 250, 1_000, 5_000, 40_000, 150_000))
    return PlannedTransfer(index, source, destination, amount, currency)


def _faults(rng: random.Random, accounts: list[str]) -> str:
    rules = []
    for account in rng.sample(accounts, 4):
        step = rng.choice(STEPS)
        phase = rng.choice(("action", "compensation"))
        kind = rng.choice(("transient", "timeout"))
        rules.append(f"{step}.{phase}={kind}*{rng.randint(1, 2)}@{account}")
    return ";".join(rules)
