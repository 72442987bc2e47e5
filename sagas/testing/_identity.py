"""Operators in tests sign in to one development identity provider per process; the kit's
workers trust it, and nothing else does."""

from __future__ import annotations

import tempfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from sagas.client import DevIdentityProvider, DevOperator
from sagas.engine import OperatorRole

BOTH_ROLES = (OperatorRole.OPERATOR, OperatorRole.APPROVER)


@cache
def dev_identity() -> DevIdentityProvider:
    """This process's development identity provider (made on first use, in a temporary
    directory)."""
    return DevIdentityProvider(Path(tempfile.mkdtemp(prefix="fundsaga-identity-")))


def kit_operator(name: str, roles: Iterable[OperatorRole] = BOTH_ROLES) -> DevOperator:
    """The operator `name`, signed in to the kit's identity provider with `roles`."""
    return dev_identity().operator(name, roles)
