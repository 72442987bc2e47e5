"""What saga types declare to a Ledger: their system-account roles and their entry kinds.

A role `fee-income` makes `@fee-income:EUR` a system account, created on first use like
`@funding:EUR`; a kind `fee` lets `Ledger.post` write entries of that kind. Undeclared ones stay
unknown, so a typo is refused instead of opening a new system account.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from sqlalchemy.orm import Session

from sagas.foundations import InvalidRequestError
from sagas.ledger._views import BUILT_IN_KINDS

DECLARED_INFO = "fundsaga_declared"
"""The session.info key under which the Ledger hands its declarations to the code that writes."""

BUILT_IN_ROLES = frozenset({"funding", "clearing"})
ROLE_LENGTH = 32
KIND_LENGTH = 16
"""journal_entry.kind's width; its CHECK constraint refuses anything else than such a word."""

_WORD = "lowercase letters, digits, '_' and '-'"


@dataclass(frozen=True, slots=True)
class Declarations:
    roles: frozenset[str] = frozenset()
    kinds: frozenset[str] = frozenset()

    def adding(self, roles: Iterable[str], kinds: Iterable[str]) -> Declarations:
        """These declarations and the given ones, each checked first (nothing is added if one
        is refused)."""
        new_roles = {check_role(role) for role in _listed(roles, "system_accounts")}
        new_kinds = {check_saga_kind(kind) for kind in _listed(kinds, "entry_kinds")}
        return Declarations(self.roles | new_roles, self.kinds | new_kinds)

    def knows_role(self, role: str) -> bool:
        return role in BUILT_IN_ROLES or role in self.roles

    def check_kind(self, kind: str) -> str:
        """`kind` if it was declared; a built-in kind is written only by its own method."""
        if isinstance(kind, str) and kind in self.kinds:
            return kind
        declared = ", ".join(sorted(self.kinds)) or "none"
        raise InvalidRequestError("kind", f"{kind!r} was not declared to this ledger: {declared}")


def declarations_of(session: Session) -> Declarations:
    declared: Declarations = session.info.get(DECLARED_INFO) or Declarations()
    return declared


def check_role(role: str, field: str = "system_accounts") -> str:
    _check_word(role, field, ROLE_LENGTH)
    if role in BUILT_IN_ROLES:
        raise InvalidRequestError(field, f"{role!r} is a built-in system account: not declared")
    return role


def check_saga_kind(kind: str) -> str:
    _check_word(kind, "entry_kinds", KIND_LENGTH)
    if kind in BUILT_IN_KINDS:
        raise InvalidRequestError("entry_kinds", f"{kind!r} is a built-in entry kind: not declared")
    return kind


def _check_word(value: str, field: str, max_length: int) -> None:
    if not isinstance(value, str) or re.fullmatch(rf"[a-z0-9_-]{{1,{max_length}}}", value) is None:
        raise InvalidRequestError(field, f"{value!r} must be 1-{max_length} {_WORD}")


def _listed(values: Iterable[str], field: str) -> list[str]:
    if isinstance(values, str):
        raise InvalidRequestError(field, "must be a collection of names, not one string")
    return list(values)
