"""A chaos run's schedule, derived from one seed: same seed, same sagas and faults."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field

from pydantic import JsonValue

from sagas.engine import SagaRequest
from sagas.fees import FEE_COLLECTION
from sagas.foundations import Money, parse_money
from sagas.fx import FX_TRANSFER
from sagas.payouts import EXTERNAL_PAYOUT, PAYOUT_BATCH
from sagas.sweep import EOD_SWEEP
from sagas.transfer import TRANSFER_SAGA
from tooling.chaos._catalog import CATALOG, Request

TRANSFER = TRANSFER_SAGA.saga_type

CURRENCIES = ("EUR", "USD")
ACCOUNTS_PER_CURRENCY = 8
OPENING_MINOR = 100_000
STEPS = tuple(step.name for step in TRANSFER_SAGA.steps)
CATALOG_FAULT_STEPS = {
    FEE_COLLECTION: ("reserve", "charge"),
    FX_TRANSFER: ("reserve", "convert"),
    EXTERNAL_PAYOUT: ("reserve", "capture"),
    EOD_SWEEP: ("sweep",),
}
"""Steps of the catalog's types that get injected faults: ledger steps only, so a fault costs a
retry of seconds, not the payout settle step's half-minute backoff."""
PAYEE_INDEX = ACCOUNTS_PER_CURRENCY - 2
"""Per currency, the account that spends whatever it receives; the last one is frozen."""


@dataclass(frozen=True, kw_only=True)
class ChaosConfig:
    transfers: int = 5000
    fees: int = 300
    """Fee collections, mixed among the transfers as the other catalog types are."""
    fx_transfers: int = 300
    payouts: int = 300
    """External payouts to the provider simulator, each beneficiary's behaviour in turn."""
    batches: int = 20
    """Payout batches, each of a few payouts drawn as the single ones are."""
    sweeps: int = 100
    """End-of-day sweeps between two accounts of a currency, racing the transfers."""
    kills: int = 50
    restarts: int = 3
    seed: int = 0
    workers: int = 2
    in_flight: int = 48
    db_fault_rate: float = 0.01
    """Chance that one SQL statement fails with an injected transient database error."""
    outage_seconds: float = 60
    """How long the database is out once mid-run (0: no outage)."""
    terminations: int = 3
    """Transfers terminated from outside (as `temporal workflow terminate` does) mid-run."""

    def counts(self) -> dict[str, int]:
        """How many sagas of each type the run launches, all mixed in one order."""
        return {
            TRANSFER: self.transfers,
            FEE_COLLECTION: self.fees,
            FX_TRANSFER: self.fx_transfers,
            EXTERNAL_PAYOUT: self.payouts,
            PAYOUT_BATCH: self.batches,
            EOD_SWEEP: self.sweeps,
        }

    @property
    def total(self) -> int:
        return sum(self.counts().values())


@dataclass(frozen=True)
class PlannedSaga:
    index: int
    saga_type: str
    key: str
    request: Request
    """The request without `idempotency_key`, which is `key`."""

    @property
    def saga_id(self) -> str:
        return f"{self.saga_type}-{self.key}"

    def body(self) -> Request:
        return {"idempotency_key": self.key, **self.request}


@dataclass(frozen=True)
class ChaosPlan:
    config: ChaosConfig
    sagas: tuple[PlannedSaga, ...]
    kill_after: tuple[tuple[int, str], ...]
    """(launch index, "signal" | "after_commit"): kill a worker once that many are launched."""
    restart_after: tuple[int, ...]
    faults: str
    """FUNDSAGA_FAULTS for the workers: transient faults on some accounts' steps."""
    outage_after: int | None = None
    """The launch index at which the database outage begins; None: no outage."""
    terminate: tuple[int, ...] = ()
    """Launch indexes of the transfers to terminate from outside once they are under way."""
    frozen: tuple[str, ...] = field(default=())
    spenders: tuple[Spender, ...] = field(default=())
    """Payees that spend all they can, all the time, while every transfer they are in fails
    to settle and compensates: a credit they could spend would be gone when it is taken back."""

    def refused_up_front(self, request: SagaRequest) -> bool:
        """Whether the client's account checks refuse the request: it names a frozen account,
        or one in another currency than it moves on it (an account's id names its currency)."""
        currencies = request.account_currencies()
        return any(
            account in self.frozen or f"-{currencies.get(name, '?').lower()}-" not in account
            for name, account in request.account_fields().items()
        )

    def of_type(self, saga_type: str) -> list[PlannedSaga]:
        return [saga for saga in self.sagas if saga.saga_type == saga_type]

    def batch_items(self) -> list[PlannedSaga]:
        return [item for batch in self.of_type(PAYOUT_BATCH) for item in batch_items(batch)]

    def payouts(self) -> list[PlannedSaga]:
        """Every payout saga: the single ones, then each batch's items."""
        return [*self.of_type(EXTERNAL_PAYOUT), *self.batch_items()]

    def followed(self) -> list[PlannedSaga]:
        """Every saga whose end the run collects: those launched and the batches' items."""
        return [*self.sagas, *self.batch_items()]


def batch_items(batch: PlannedSaga) -> list[PlannedSaga]:
    """A planned batch's items as the payout sagas the batch starts: key `<batch key>-<n>`."""
    items = batch.request["items"]
    if not isinstance(items, list):
        raise TypeError(f"{batch.saga_id}: items must be a list")
    return [
        PlannedSaga(batch.index, EXTERNAL_PAYOUT, f"{batch.key}-{number}", _item(item))
        for number, item in enumerate(items, start=1)
    ]


def _item(item: JsonValue) -> Request:
    if not isinstance(item, dict):
        raise TypeError("a batch item must be a payout request")
    return item


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
    order = [name for name, count in config.counts().items() for _ in range(count)]
    rng.shuffle(order)
    seen: Counter[str] = Counter()
    sagas = []
    for index, name in enumerate(order):
        sagas.append(_saga(rng, config.seed, index, name, seen[name], accounts))
        seen[name] += 1
    marks = sorted(rng.sample(range(1, config.total), config.kills + config.restarts))
    rng.shuffle(marks)
    kills = sorted(marks[: config.kills])
    outage_after = (
        rng.randrange(config.total // 4, config.total // 2 + 1) if config.outage_seconds else None
    )
    terminate = _to_terminate(rng, sagas, spenders, frozen, config.terminations)
    kill_after = tuple((at, rng.choice(("signal", "after_commit"))) for at in kills)
    faults = [
        _faults(rng, accounts),
        _catalog_faults(rng, accounts),
        *(_never_settles(s.payee) for s in spenders),
    ]
    return ChaosPlan(
        config=config,
        sagas=tuple(sagas),
        kill_after=kill_after,
        restart_after=tuple(sorted(marks[config.kills :])),
        outage_after=outage_after,
        terminate=terminate,
        faults=";".join(faults),
        frozen=frozen,
        spenders=spenders,
    )


def _to_terminate(
    rng: random.Random,
    sagas: list[PlannedSaga],
    spenders: tuple[Spender, ...],
    frozen: tuple[str, ...],
    count: int,
) -> tuple[int, ...]:
    """Transfers that take effect to a spending payee first: they never settle, so each is still
    under way, money moved, for seconds of settle retries when it is terminated; then other
    transfers that take effect; then any."""
    payees = {spender.payee for spender in spenders}

    def preference(saga: PlannedSaga) -> int:
        if not _may_take_effect(saga, frozen):
            return 2
        return 0 if saga.request["destination_account"] in payees else 1

    transfers = [saga for saga in sagas if saga.saga_type == TRANSFER]
    rng.shuffle(transfers)
    transfers.sort(key=preference)
    return tuple(sorted(saga.index for saga in transfers[:count]))


def _may_take_effect(transfer: PlannedSaga, frozen: tuple[str, ...]) -> bool:
    """Whether no rule refuses the transfer's first steps: an amount its payer can hold, a payer
    that is not frozen, a payee of the same currency."""
    request = transfer.request
    currency = str(request["currency"])
    amount = parse_money(str(request["amount"]), currency)
    return (
        amount.minor < OPENING_MINOR
        and request["source_account"] not in frozen
        and f"-{currency.lower()}-" in str(request["destination_account"])
    )


def _spenders(accounts: list[str]) -> tuple[Spender, ...]:
    pools = [
        accounts[n : n + ACCOUNTS_PER_CURRENCY]
        for n in range(0, len(accounts), ACCOUNTS_PER_CURRENCY)
    ]
    return tuple(Spender(payee=pool[PAYEE_INDEX], shop=pool[0]) for pool in pools)


def _never_settles(account: str) -> str:
    """Every settle attempt fails transiently: the saga exhausts its retries and compensates."""
    return f"{TRANSFER}/settle=transient@{account}"


def _pools(accounts: list[str]) -> Mapping[str, list[str]]:
    return {code: [a for a in accounts if f"-{code.lower()}-" in a] for code in CURRENCIES}


def _saga(
    rng: random.Random, seed: int, index: int, saga_type: str, nth: int, accounts: list[str]
) -> PlannedSaga:
    if saga_type == TRANSFER:
        request = _transfer(rng, accounts)
    else:
        request = CATALOG[saga_type].build(rng, _pools(accounts), nth)
    return PlannedSaga(index, saga_type, f"chaos-{seed}-{index}", request)


def _transfer(rng: random.Random, accounts: list[str]) -> Request:
    currency = rng.choice(CURRENCIES)
    pool = _pools(accounts)[currency]
    source, destination = rng.sample(pool, 2)
    if rng.random() < 0.05:
        destination = rng.choice([a for a in accounts if a not in pool])
    amount = rng.choice((100, 250, 1_000, 5_000, 40_000, 150_000))
    return {
        "source_account": source,
        "destination_account": destination,
        "amount": Money.of(amount, currency).amount_text(),
        "currency": currency,
    }


def _faults(rng: random.Random, accounts: list[str]) -> str:
    rules = []
    for account in rng.sample(accounts, 4):
        step = rng.choice(STEPS)
        phase = rng.choice(("action", "compensation"))
        kind = rng.choice(("transient", "timeout"))
        rules.append(f"{TRANSFER}/{step}.{phase}={kind}*{rng.randint(1, 2)}@{account}")
    return ";".join(rules)


def _catalog_faults(rng: random.Random, accounts: list[str]) -> str:
    rules = []
    for saga_type, steps in CATALOG_FAULT_STEPS.items():
        step, account = rng.choice(steps), rng.choice(accounts)
        kind = rng.choice(("transient", "timeout"))
        rules.append(f"{saga_type}/{step}={kind}*{rng.randint(1, 2)}@{account}")
    return ";".join(rules)
