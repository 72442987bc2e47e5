"""What `fundsaga dev --demo` runs: one saga per outcome worth reading, of every built-in type.

A saga type joins the demo with its plans in DEMO_PLANS and the accounts they use in
DEMO_ACCOUNTS.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sagas.engine import SagaStatus
from sagas.fees import FEE_COLLECTION
from sagas.fx import FX_TRANSFER
from sagas.payouts import EXTERNAL_PAYOUT, PAYOUT_BATCH
from sagas.sweep import EOD_SWEEP
from sagas.transfer import TRANSFER_SAGA

TRANSFER = TRANSFER_SAGA.saga_type
DEMO_FAULTS = "settle=transient@demo-erin"
"""Every settle of a transfer touching demo-erin fails transiently until its retries run out."""
INQUIRY_WAIT_SECONDS = 5
"""How long the payout whose callback is lost waits for it before it asks the provider."""
CALLBACK_WAIT_SECONDS = 60
"""The other payouts' wait: their callback comes at once, and a lost one holds no demo an hour."""

DEMO_ACCOUNTS: Mapping[str, tuple[str, str]] = {
    "demo-alice": ("EUR", "1000.00"),
    "demo-bob": ("EUR", "0"),
    "demo-carol": ("EUR", "0"),  # frozen: a transfer to it is refused
    "demo-erin": ("EUR", "0"),
    "demo-yuki": ("JPY", "0"),
    "demo-ops": ("EUR", "500.00"),  # swept down to 200.00 each run
    "demo-ops-quiet": ("EUR", "200.00"),  # at its threshold: nothing to sweep
    "demo-treasury": ("EUR", "0"),
}
"""Account id → (currency, balance the demo tops it up to before each run)."""
FROZEN_ACCOUNTS = ("demo-carol",)


@dataclass(frozen=True, kw_only=True)
class DemoPlan:
    """One saga the demo starts; its idempotency key is `demo-<time>-<name>`."""

    name: str
    saga_type: str
    shows: str
    """What its history shows, in a few words."""
    expected: SagaStatus
    request: Mapping[str, Any]
    """The request's fields but the idempotency key (and a payout's beneficiary)."""
    past_the_checks: bool = False
    """Started as a service in another language starts it, past the client's account checks
    (which refuse a frozen account before anything starts): its step meets the account."""
    provider_rule: Mapping[str, Any] | None = None
    """How the provider simulator answers this payout (a scenario of tooling/provider); a plan
    with a rule pays out to a beneficiary of its own, named by its key, and needs the simulator.
    A batch's items all pay out to that beneficiary."""


def _transfer(name: str, to: str, amount: str, shows: str, expected: SagaStatus) -> DemoPlan:
    request = {"source_account": "demo-alice", "destination_account": to, "currency": "EUR"}
    return DemoPlan(
        name=name,
        saga_type=TRANSFER,
        shows=shows,
        expected=expected,
        request=request | {"amount": amount, "reference": shows},
        past_the_checks=to in FROZEN_ACCOUNTS,
    )


def _payout(
    name: str, shows: str, expected: SagaStatus, *, settle_wait: int, **rule: Any
) -> DemoPlan:
    """A payout from demo-alice; `rule` is how the simulator answers it."""
    request = {"account": "demo-alice", "currency": "EUR", "amount": "40.00", "reference": shows}
    return DemoPlan(
        name=name,
        saga_type=EXTERNAL_PAYOUT,
        shows=shows,
        expected=expected,
        request=request | {"settle_wait_seconds": settle_wait},
        provider_rule=rule,
    )


COMPLETED, COMPENSATED = SagaStatus.COMPLETED, SagaStatus.COMPENSATED
BATCH_ITEM = {"reference": "demo batch", "settle_wait_seconds": CALLBACK_WAIT_SECONDS}
TRANSFER_PLANS = (
    _transfer("completed", "demo-bob", "100.00", "a transfer that completes", COMPLETED),
    _transfer(
        "business-error",
        "demo-carol",
        "25.00",
        "to a frozen account: refused by its step",
        COMPENSATED,
    ),
    _transfer(
        "retries-exhausted",
        "demo-erin",
        "10.00",
        "settle fails until its retries run out",
        COMPENSATED,
    ),
)
FEE_PLANS = (
    DemoPlan(
        name="fee",
        saga_type=FEE_COLLECTION,
        shows="a fee and its tax charged",
        expected=COMPLETED,
        request={"customer_account": "demo-alice", "currency": "EUR", "fee": "2.50", "tax": "0.50"},
    ),
)
FX_PLANS = (
    DemoPlan(
        name="fx",
        saga_type=FX_TRANSFER,
        shows="EUR to JPY at a locked rate",
        expected=COMPLETED,
        request={
            "source_account": "demo-alice",
            "destination_account": "demo-yuki",
            "source_currency": "EUR",
            "target_currency": "JPY",
            "source_amount": "50.00",
        },
    ),
)
PAYOUT_PLANS = (
    _payout(
        "payout-callback",
        "settled by the provider's callback",
        COMPLETED,
        settle_wait=CALLBACK_WAIT_SECONDS,
        behaviour="settle-callback",
        callbacks=1,
    ),
    _payout(
        "payout-forward",
        "submit timed out, retry asked first: went forward",
        COMPLETED,
        settle_wait=CALLBACK_WAIT_SECONDS,
        behaviour="accept-then-timeout",
        callbacks=1,
    ),
    _payout(
        "payout-inquiry",
        f"callback lost: settle asked after a {INQUIRY_WAIT_SECONDS} s wait",
        COMPLETED,
        settle_wait=INQUIRY_WAIT_SECONDS,
        behaviour="settle-callback",
        callbacks=0,
        settle_after_seconds=0,
    ),
    _payout(
        "payout-declined",
        "declined by the provider before the pivot",
        COMPENSATED,
        settle_wait=CALLBACK_WAIT_SECONDS,
        behaviour="decline",
        reason="beneficiary account closed",
    ),
)
BATCH_PLANS = (
    DemoPlan(
        name="batch",
        saga_type=PAYOUT_BATCH,
        shows="3 payouts, 2 at once; one beyond the balance is compensated alone",
        expected=COMPLETED,
        request={
            "concurrency": 2,
            "items": [
                {"account": "demo-alice", "currency": "EUR", "amount": amount, **BATCH_ITEM}
                for amount in ("15.00", "5000.00", "15.00")
            ],
        },
        provider_rule={"behaviour": "settle-callback", "callbacks": 1},
    ),
)
SWEEP_PLANS = tuple(
    DemoPlan(
        name=name,
        saga_type=EOD_SWEEP,
        shows=shows,
        expected=COMPLETED,
        request={
            "operating_account": account,
            "treasury_account": "demo-treasury",
            "currency": "EUR",
            "threshold": "200.00",
        },
    )
    for name, account, shows in (
        ("sweep", "demo-ops", "end-of-day sweep: 300.00 above 200.00 to treasury"),
        ("sweep-at-threshold", "demo-ops-quiet", "end-of-day sweep at its threshold: 0 moved"),
    )
)
DEMO_PLANS: tuple[DemoPlan, ...] = (
    *TRANSFER_PLANS,
    *FEE_PLANS,
    *FX_PLANS,
    *PAYOUT_PLANS,
    *BATCH_PLANS,
    *SWEEP_PLANS,
)
"""Every saga the demo starts, in the order it prints them."""
