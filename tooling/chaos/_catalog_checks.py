"""Checks of the catalog's saga types after a chaos run: what each completed saga moved, the FX
positions, the fee accounts, and the money that left through the payment provider."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from sagas.engine import SagaStatus
from sagas.fees import FEE_COLLECTION, FEE_INCOME, TAX_PAYABLE, FeeRequest
from sagas.foundations import Money
from sagas.fx import DEMO_RATES, FX_POSITION, FX_TRANSFER, FxRequest, convert_amount
from sagas.ledger import Ledger, funding_account_id, system_account_id
from sagas.payouts import PAYOUT_CLEARING, PAYOUT_ENTRY, PayoutRequest
from sagas.sweep import EOD_SWEEP, SWEEP_ENTRY, SweepRequest
from tooling.chaos._check import Check
from tooling.chaos._plan import CURRENCIES, ChaosPlan, PlannedSaga
from tooling.chaos._rail import RailPayout

COMPLETED = SagaStatus.COMPLETED.value
COMPENSATED = SagaStatus.COMPENSATED.value


def balance(ledger: Ledger, account_id: str) -> int:
    """A system account's balance; 0 while nothing has created it."""
    found = ledger.find_account(account_id)
    return 0 if found is None else found.balance.minor


def _minor(effect: Mapping[str, Money]) -> dict[str, int]:
    return {account: money.minor for account, money in effect.items()}


def _completed(sagas: list[PlannedSaga], statuses: Mapping[str, str]) -> list[PlannedSaga]:
    return [s for s in sagas if statuses.get(s.saga_id) == COMPLETED]


def _moved_wrong(
    ledger: Ledger, sagas: list[PlannedSaga], expected: Callable[[PlannedSaga], dict[str, int]]
) -> list[str]:
    """Completed sagas whose net effect on the ledger is not what their request says."""
    return [s.saga_id for s in sagas if _minor(ledger.net_effect(s.saga_id)) != expected(s)]


def fx_target(request: FxRequest) -> Money:
    pair = (request.source_currency, request.target_currency)
    return convert_amount(request.source_money, DEMO_RATES[pair], request.target_currency).target


def _fx_effect(saga: PlannedSaga) -> dict[str, int]:
    request = FxRequest.model_validate(saga.body())
    source, target = request.source_money, fx_target(request)
    return {
        request.source_account: -source.minor,
        system_account_id(FX_POSITION, request.source_currency): source.minor,
        system_account_id(FX_POSITION, request.target_currency): -target.minor,
        request.destination_account: target.minor,
    }


def fx_positions(ledger: Ledger, plan: ChaosPlan, statuses: Mapping[str, str]) -> Check:
    completed = _completed(plan.of_type(FX_TRANSFER), statuses)
    expected = dict.fromkeys(CURRENCIES, 0)
    for saga in completed:
        for account, minor in _fx_effect(saga).items():
            if account.startswith(f"@{FX_POSITION}:"):
                expected[account.rsplit(":", 1)[1]] += minor
    found = {c: balance(ledger, system_account_id(FX_POSITION, c)) for c in CURRENCIES}
    wrong = _moved_wrong(ledger, completed, _fx_effect)
    detail = f"positions {found} vs {expected} from {len(completed)} completed, {len(wrong)} wrong"
    return Check(
        "i) FX positions: per currency what completed conversions moved",
        not wrong and found == expected,
        detail,
    )


def _fee_effect(saga: PlannedSaga) -> dict[str, int]:
    request = FeeRequest.model_validate(saga.body())
    return {
        request.customer_account: -request.total.minor,
        system_account_id(FEE_INCOME, request.currency): request.fee_money.minor,
        system_account_id(TAX_PAYABLE, request.currency): request.tax_money.minor,
    }


def fees(ledger: Ledger, plan: ChaosPlan, statuses: Mapping[str, str]) -> Check:
    completed = _completed(plan.of_type(FEE_COLLECTION), statuses)
    expected: dict[str, int] = {}
    for saga in completed:
        for account, minor in _fee_effect(saga).items():
            if account.startswith("@"):
                expected[account] = expected.get(account, 0) + minor
    roles = (FEE_INCOME, TAX_PAYABLE)
    found = {
        system_account_id(r, c): balance(ledger, system_account_id(r, c))
        for r in roles
        for c in CURRENCIES
    }
    wanted = {account: expected.get(account, 0) for account in found}
    wrong = _moved_wrong(ledger, completed, _fee_effect)
    detail = f"{found} vs {wanted} from {len(completed)} completed, {len(wrong)} wrong"
    return Check(
        "j) fee income + tax payable = what completed fees took",
        not wrong and found == wanted,
        detail,
    )


def _payout_effect(saga: PlannedSaga) -> dict[str, int]:
    request = PayoutRequest.model_validate(saga.body())
    money = request.money.minor
    return {request.account: -money, funding_account_id(request.currency): money}


def paid_to_rail(ledger: Ledger) -> dict[str, int]:
    """Per currency, what settled payouts posted to @funding: money that left the system."""
    out: dict[str, int] = {}
    for entry in ledger.entries():
        if entry.kind != PAYOUT_ENTRY:
            continue
        for posting in entry.postings:
            code = posting.amount.currency.code
            if posting.account_id == funding_account_id(code):
                out[code] = out.get(code, 0) + posting.amount.minor
    return out


def rail_key(saga: PlannedSaga) -> str:
    """The payout's key at the provider: its submit step's effect key."""
    return f"{saga.saga_id}:submit:action"


def _payout_wrong(saga: PlannedSaga, status: str | None, at_rail: RailPayout | None) -> bool:
    if status == COMPENSATED:
        return at_rail is not None
    if status != COMPLETED or at_rail is None:
        return True
    request = PayoutRequest.model_validate(saga.body())
    return at_rail.status != "settled" or at_rail.amount != request.money


def rail(
    ledger: Ledger,
    plan: ChaosPlan,
    statuses: Mapping[str, str],
    at_rail: Mapping[str, RailPayout | None],
    paid_out: Mapping[str, int],
) -> Check:
    """Each completed payout (single or a batch's item) settled once at the provider for its
    amount, each compensated one never submitted, and what the ledger sent to @funding is what
    the provider paid."""
    payouts = plan.payouts()
    wrong = [
        s.saga_id
        for s in payouts
        if _payout_wrong(s, statuses.get(s.saga_id), at_rail.get(rail_key(s)))
    ]
    completed = _completed(payouts, statuses)
    wrong += _moved_wrong(ledger, completed, _payout_effect)
    settled = dict.fromkeys(CURRENCIES, 0)
    for saga in completed:
        found = at_rail.get(rail_key(saga))
        if found is not None and found.status == "settled":
            settled[found.amount.currency.code] += found.amount.minor
    clearing = {c: balance(ledger, system_account_id(PAYOUT_CLEARING, c)) for c in CURRENCIES}
    ledger_out = {c: paid_out.get(c, 0) for c in CURRENCIES}
    ok = not wrong and ledger_out == settled and not any(clearing.values())
    detail = (
        f"to the rail {ledger_out}, provider settled {settled}; clearing {clearing}; "
        f"{len(wrong)} wrong" + (f", first: {sorted(wrong)[0]}" if wrong else "")
    )
    return Check(
        "k) payouts: ledger paid out = provider settled, once; compensated never submitted",
        ok,
        detail,
    )


def _sweep_wrong(ledger: Ledger, saga: PlannedSaga) -> bool:
    """Whether a completed sweep did other than move nothing, or one entry's worth from its
    operating to its treasury account. (That it kept the threshold, the ledger's tests prove:
    the balance a concurrent run ends with says nothing of it.)"""
    request = SweepRequest.model_validate(saga.body())
    effect = _minor(ledger.net_effect(saga.saga_id))
    entries = [e for e in ledger.entries(saga_id=saga.saga_id) if e.kind == SWEEP_ENTRY]
    if not effect:
        return bool(entries)
    moved = effect.get(request.treasury_account, 0)
    shape = {request.operating_account: -moved, request.treasury_account: moved}
    return moved <= 0 or effect != shape or len(entries) != 1


def sweeps(ledger: Ledger, plan: ChaosPlan, statuses: Mapping[str, str]) -> Check:
    completed = _completed(plan.of_type(EOD_SWEEP), statuses)
    wrong = [s.saga_id for s in completed if _sweep_wrong(ledger, s)]
    moved = sum(1 for s in completed if ledger.net_effect(s.saga_id))
    detail = f"{len(completed)} completed, {moved} moved money, {len(wrong)} wrong" + (
        f", first: {sorted(wrong)[0]}" if wrong else ""
    )
    return Check(
        "m) sweeps: each completed one moved once, operating to treasury, or nothing",
        not wrong,
        detail,
    )
