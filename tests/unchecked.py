"""A start past the client's account checks, as a service in another language or
`temporal workflow start` makes one: a saga whose account is frozen or closed is then refused by
its step and compensates, which the tests of compensation need."""

from __future__ import annotations

import copy

from sagas.client import FundsagaClient


def unchecked(client: FundsagaClient) -> FundsagaClient:
    """The same client without its ledger: its starts skip the account checks."""
    bypassing = copy.copy(client)
    bypassing.ledger = None
    return bypassing
