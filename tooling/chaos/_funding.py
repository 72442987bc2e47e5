"""The run's accounts, opened empty and funded as operations fund: one operator of the run's
identity provider proposes, another approves, and the worker posts the entry. The audit trail
and the funding's history then witness every opening balance (check i)."""

from __future__ import annotations

from sagas.client import DevIdentityProvider, FundsagaClient, OperatorActions
from sagas.foundations import Money
from sagas.ledger import Ledger
from tooling.chaos._plan import OPENING_MINOR, ChaosPlan, account_ids

MAKER, CHECKER = "chaos-funder", "chaos-funding-checker"


def open_accounts(ledger: Ledger) -> None:
    for account_id in account_ids():
        ledger.open_account(account_id, currency_of(account_id))


async def fund_accounts(
    client: FundsagaClient, identity: DevIdentityProvider, ledger: Ledger, plan: ChaosPlan
) -> dict[str, int]:
    """Fund every account by two operators, then freeze the plan's frozen ones; per currency,
    what was funded."""
    maker, checker = (
        OperatorActions(client.temporal, client.task_queue, identity.operator(name))
        for name in (MAKER, CHECKER)
    )
    funded: dict[str, int] = {}
    for account_id in account_ids():
        currency = currency_of(account_id)
        proposal = await maker.propose_funding(
            account_id,
            Money.of(OPENING_MINOR, currency),
            "chaos: opening balance",
            funding_key=f"chaos-open-{account_id}",
        )
        await checker.approve_funding(proposal, "chaos: checked")
        funded[currency] = funded.get(currency, 0) + OPENING_MINOR
    for account_id in plan.frozen:
        ledger.freeze(account_id)
    return funded


def currency_of(account_id: str) -> str:
    return account_id.split("-")[1].upper()
