"""Matching rules: how strictly each statement line is matched, chosen per line by what it
applies to (the rail account the statement names, the currency, the line's kind). The
highest-priority rule that applies decides; the settings' policy is the default rule, below
every other, that applies to every line."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from decimal import Decimal
from enum import StrEnum
from fractions import Fraction

from pydantic import JsonValue

from sagas.foundations import Money, currency
from sagas.reconcile.formats import LineKind
from sagas.reconcile.matching._booked import BookedLine
from sagas.reconcile.matching._policy import ReconcilePolicy

DEFAULT_RULE = "default"


class Requirement(StrEnum):
    """A field that must agree for a line to match, beyond amount and currency (always)."""

    END_TO_END_ID = "end_to_end_id"  # matched by its end-to-end id only, never by amount and date
    VALUE_DATE = "value_date"  # also when matched by reference: within the date tolerance


@dataclass(frozen=True, kw_only=True)
class AmountTolerance:
    """How far a line's amount may be from its movement's: one of minor units (the settings'),
    an amount in the line's currency (`0.05`) or a percent of the movement's amount (`0.5%`).
    Computed exactly (integers and fractions), never in floating point."""

    minor: int | None = None
    amount: Decimal | None = None
    percent: Decimal | None = None

    def allowed(self, base_minor: int, code: str) -> Fraction:
        """The largest difference allowed, in minor units of `code`, for a movement of
        `base_minor`."""
        if self.amount is not None:
            return Fraction(self.amount) * Fraction(10) ** currency(code).exponent
        if self.percent is not None:
            return Fraction(self.percent) / 100 * abs(base_minor)
        return Fraction(self.minor or 0)

    def allows(self, difference_minor: int, base_minor: int, code: str) -> bool:
        return abs(difference_minor) <= self.allowed(base_minor, code)

    def text(self) -> str:
        """As a rules file states it; the settings' as minor units."""
        if self.amount is not None:
            return str(self.amount)
        if self.percent is not None:
            return f"{self.percent}%"
        return f"{self.minor or 0} minor units"


@dataclass(frozen=True, kw_only=True)
class MatchingRule:
    """One rule, every field given (a rules file's left-out fields are the default rule's)."""

    name: str
    priority: int | None
    """None: the default rule, below every rule of the file."""
    accounts: frozenset[str] = frozenset()
    """The rail accounts it applies to, as statements name them; empty: any."""
    currencies: frozenset[str] = frozenset()
    """Empty: any."""
    kinds: frozenset[LineKind] = frozenset()
    """The line kinds it applies to; empty: any."""
    amount_tolerance: AmountTolerance = field(default_factory=AmountTolerance)
    date_tolerance: timedelta = timedelta(days=2)
    """How far a line's value date may be from its movement's booking."""
    require: frozenset[Requirement] = frozenset()
    fees: Mapping[str, Money] = field(default_factory=dict)
    """The fee agreed with the rail per movement, by currency; none agreed: none expected."""

    @classmethod
    def default(cls, policy: ReconcilePolicy) -> MatchingRule:
        """The settings' policy as a rule: what every line is judged by when no rule of the
        file applies to it."""
        return cls(
            name=DEFAULT_RULE,
            priority=None,
            amount_tolerance=AmountTolerance(minor=policy.amount_tolerance_minor),
            date_tolerance=policy.date_tolerance,
            fees=dict(policy.fees),
        )

    def applies_to(self, *, account: str, currency: str, kind: LineKind) -> bool:
        return (
            (not self.accounts or account in self.accounts)
            and (not self.currencies or currency in self.currencies)
            and (not self.kinds or kind in self.kinds)
        )

    def amount_within(self, difference_minor: int, base_minor: int, code: str) -> bool:
        return self.amount_tolerance.allows(difference_minor, base_minor, code)

    def expected_fee(self, code: str) -> int:
        fee = self.fees.get(code)
        return 0 if fee is None else fee.minor

    def requires(self, requirement: Requirement) -> bool:
        return requirement in self.require

    def facts(self) -> dict[str, JsonValue]:
        def listed(values: Iterable[str]) -> list[JsonValue]:
            found: list[JsonValue] = []
            found.extend(sorted(values))
            return found

        return {
            "name": self.name,
            "priority": self.priority,
            "accounts": listed(self.accounts),
            "currencies": listed(self.currencies),
            "kinds": listed(kind.value for kind in self.kinds),
            "amount_tolerance": self.amount_tolerance.text(),
            "date_tolerance_days": self.date_tolerance.days,
            "require": listed(r.value for r in self.require),
            "fees": {code: fee.amount_text() for code, fee in sorted(self.fees.items())},
        }


@dataclass(frozen=True)
class MatchingRules:
    """The rules in force, highest priority first, the default rule last."""

    rules: tuple[MatchingRule, ...]

    @classmethod
    def of(cls, policy: ReconcilePolicy, rules: Iterable[MatchingRule] = ()) -> MatchingRules:
        """`rules` (a rules file's, their priorities distinct) above the policy's default."""
        ranked = sorted(rules, key=lambda rule: -(rule.priority or 0))
        return cls((*ranked, MatchingRule.default(policy)))

    @property
    def default(self) -> MatchingRule:
        return self.rules[-1]

    def rule_of(self, *, account: str, currency: str, kind: LineKind) -> MatchingRule:
        """The highest-priority rule that applies; the default applies to every line."""
        found = (
            r for r in self.rules if r.applies_to(account=account, currency=currency, kind=kind)
        )
        return next(found, self.default)

    def rule_for(self, line: BookedLine) -> MatchingRule:
        return self.rule_of(account=line.account, currency=line.currency, kind=line.kind)

    def facts(self) -> dict[str, JsonValue]:
        """The rules as a run's audit record states them, with the SHA-256 of their canonical
        JSON: two runs under different rules are told apart."""
        stated: list[JsonValue] = [rule.facts() for rule in self.rules]
        canonical = json.dumps(stated, sort_keys=True, separators=(",", ":")).encode()
        return {"rules": stated, "rules_sha256": hashlib.sha256(canonical).hexdigest()}
