"""Operators in tests sign in to one development identity provider per process; the kit's
workers trust it, and nothing else does."""

from __future__ import annotations

import atexit
import shutil
import tempfile
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime
from functools import cache
from pathlib import Path

from sagas.client import DEV_AUDIENCE, DEV_ISSUER, DevIdentityProvider, DevOperator
from sagas.engine import OperatorBinding, OperatorRole

BOTH_ROLES = (OperatorRole.OPERATOR, OperatorRole.APPROVER)


@cache
def dev_identity() -> DevIdentityProvider:
    """This process's development identity provider (made on first use, in a temporary
    directory removed when the process exits)."""
    directory = Path(tempfile.mkdtemp(prefix="fundsaga-identity-"))
    atexit.register(shutil.rmtree, directory, ignore_errors=True)
    return DevIdentityProvider(directory)


def kit_operator(
    name: str, roles: Iterable[OperatorRole] = BOTH_ROLES, *, issued_at: datetime | None = None
) -> DevOperator:
    """The operator `name`, signed in to the kit's identity provider with `roles`; its tokens
    are issued at `issued_at` (`await env.get_current_time()` on a time-skipping server, whose
    workflows judge a token's expiry by their own clock), else now."""
    return replace(dev_identity().operator(name, roles), issued_at=issued_at)


def kit_token(
    name: str,
    binding: OperatorBinding,
    roles: Iterable[OperatorRole] = BOTH_ROLES,
    *,
    issued_at: datetime | None = None,
) -> str:
    """A token of the kit's identity provider for `name`, bound to the one action `binding`
    names; `issued_at` is a time-skipping server's time (its workflows' clock), else now."""
    return dev_identity().mint(name, roles, binding, issued_at=issued_at)


def kit_identity_environment() -> dict[str, str]:
    """The settings that make a `fundsaga worker` process trust the kit's identity provider."""
    return {
        "FUNDSAGA_OPERATOR_JWKS": str(dev_identity().jwks_path),
        "FUNDSAGA_OPERATOR_ISSUER": DEV_ISSUER,
        "FUNDSAGA_OPERATOR_AUDIENCE": DEV_AUDIENCE,
    }
