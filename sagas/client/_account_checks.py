"""The account checks of a start, before anything is written: every account a request names
(`SagaRequest.account_fields()`) must exist, take new movements, and hold the currency the
request moves on it (`account_currencies()`); a refusal names the field.

Frozen and closed accounts are refused because every action of the ledger refuses them (a
debit, a credit, a hold, a capture); compensations (reversals, voids) do not, and no check here
stands in their way. A saga started past these checks (`temporal workflow start`, another
SDK) meets the same refusals at its first step that touches the account, which names the field
too, and compensates.
"""

from __future__ import annotations

from sagas.engine import SagaRequest
from sagas.foundations import InvalidRequestError
from sagas.ledger import AccountStatus, AccountView, Ledger


def check_accounts(ledger: Ledger, request: SagaRequest) -> None:
    """InvalidRequestError naming the first field (in name order) whose account is refused."""
    currencies = request.account_currencies()
    for field, account_id in sorted(request.account_fields().items()):
        found = ledger.find_account(account_id)
        problem = account_problem(account_id, found, currencies.get(field))
        if problem is not None:
            raise InvalidRequestError(field, problem)


def account_problem(account_id: str, found: AccountView | None, currency: str | None) -> str | None:
    """Why a saga's action would refuse the account `found` under `account_id`, if it would."""
    if found is None:
        return f"unknown account {account_id!r}"
    if currency is not None and found.currency != currency:
        return f"account {account_id!r} holds {found.currency}, the request moves {currency} on it"
    if found.status is not AccountStatus.ACTIVE:
        return f"account {account_id!r} is {found.status.value}: it takes no new movements"
    return None
