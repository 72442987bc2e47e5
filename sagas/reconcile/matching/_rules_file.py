"""The matching rules file (FUNDSAGA_RECONCILE_RULES, TOML): read and checked whole when the
worker starts, every error naming the rule and its field (`rules[2].amount_tolerance`), so a
worker never matches under half a file."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any, TypeVar

from sagas.foundations import InvalidRequestError, Money, currency, parse_money
from sagas.reconcile.formats import LineKind
from sagas.reconcile.matching._matching_rules import (
    DEFAULT_RULE,
    AmountTolerance,
    MatchingRule,
    MatchingRules,
    Requirement,
)
from sagas.reconcile.matching._policy import ReconcilePolicy

SETTING = "FUNDSAGA_RECONCILE_RULES"
RULE_FIELDS = frozenset(
    {
        "name",
        "priority",
        "accounts",
        "currencies",
        "kinds",
        "amount_tolerance",
        "date_tolerance_days",
        "require",
        "fees",
    }
)
MAX_DATE_TOLERANCE_DAYS = 31
MAX_NAME_LENGTH = 64
ACCOUNT_LENGTH = 64
"""As a statement's account is kept (statement_line.account): a longer one never applies."""
_TOLERANCE = re.compile(r"(?P<number>[0-9]+(?:\.[0-9]+)?)(?P<percent>%?)")
T = TypeVar("T")


def load_rules(path: str | Path, default: ReconcilePolicy) -> MatchingRules:
    """The rules of the file at `path` above the default rule of `default`."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        reason = err.strerror if isinstance(err, OSError) else "not UTF-8"
        raise InvalidRequestError(SETTING, f"{path}: {reason}") from None
    return parse_rules(text, default, source=str(path))


def parse_rules(text: str, default: ReconcilePolicy, *, source: str = SETTING) -> MatchingRules:
    """The rules `text` states; a field a rule leaves out is the default rule's (the
    settings'). Refused, naming the field, on any unknown or duplicate key, any bad value, two
    rules of one name or one priority."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InvalidRequestError(SETTING, f"{source} is not valid TOML: {err}") from None
    unknown = sorted(set(document) - {"rules"})
    if unknown:
        raise InvalidRequestError(
            unknown[0], f"{source}: unknown field; a rules file holds [[rules]]"
        )
    listed = document.get("rules", [])
    if not isinstance(listed, list) or not all(isinstance(r, dict) for r in listed):
        raise InvalidRequestError("rules", f"{source}: must be an array of tables ([[rules]])")
    fallback = MatchingRule.default(default)
    rules = [_rule(index, stated, fallback, source) for index, stated in enumerate(listed)]
    _distinct(rules, lambda rule: rule.name, "name", source)
    _distinct(rules, lambda rule: rule.priority, "priority", source)
    return MatchingRules.of(default, rules)


def _distinct(
    rules: list[MatchingRule], key: Callable[[MatchingRule], object], what: str, source: str
) -> None:
    seen: dict[object, int] = {}
    for index, rule in enumerate(rules):
        value = key(rule)
        if value in seen:
            raise InvalidRequestError(
                f"rules[{index}].{what}",
                f"rule {rule.name!r} in {source}: {value!r} is rules[{seen[value]}]'s too; "
                f"each rule's {what} is its own",
            )
        seen[value] = index


class _Fields:
    """One rule's table, each value taken once and checked, naming `rules[i].field`."""

    def __init__(self, index: int, stated: dict[str, Any], source: str) -> None:
        self.index, self.stated, self.source = index, stated, source
        name = stated.get("name")
        self.name = name if isinstance(name, str) else f"#{index}"

    def refuse(self, key: str, problem: str) -> InvalidRequestError:
        return InvalidRequestError(
            f"rules[{self.index}].{key}", f"rule {self.name!r} in {self.source}: {problem}"
        )

    def typed(self, key: str, kind: type[T], what: str) -> T | None:
        value = self.stated.get(key)
        if value is None:
            return None
        if not isinstance(value, kind) or isinstance(value, bool):
            raise self.refuse(key, f"must be {what}, not {value!r}")
        return value

    def strings(self, key: str, check: Callable[[str], str]) -> frozenset[str]:
        listed = self.typed(key, list, "a list of strings")
        if listed is None:
            return frozenset()
        if not listed:
            raise self.refuse(key, "is an empty list: leave the field out instead")
        found: set[str] = set()
        for position, value in enumerate(listed):
            if not isinstance(value, str) or not value:
                raise self.refuse(
                    f"{key}[{position}]", f"must be a non-empty string, not {value!r}"
                )
            try:
                checked = check(value)
            except ValueError as err:
                raise self.refuse(f"{key}[{position}]", str(err)) from None
            if checked in found:
                raise self.refuse(f"{key}[{position}]", f"{value!r} is listed twice")
            found.add(checked)
        return frozenset(found)


def _rule(index: int, stated: dict[str, Any], fallback: MatchingRule, source: str) -> MatchingRule:
    fields = _Fields(index, stated, source)
    unknown = sorted(set(stated) - RULE_FIELDS)
    if unknown:
        raise fields.refuse(
            unknown[0], f"unknown field; a rule has {', '.join(sorted(RULE_FIELDS))}"
        )
    name = fields.typed("name", str, "a string")
    if not name or not name.strip() or len(name) > MAX_NAME_LENGTH:
        raise fields.refuse("name", f"every rule needs a name of 1 to {MAX_NAME_LENGTH} characters")
    if name == DEFAULT_RULE:
        raise fields.refuse("name", f"{DEFAULT_RULE!r} is the settings' rule, below every other")
    priority = fields.typed("priority", int, "an integer")
    if priority is None:
        raise fields.refuse(
            "priority", "every rule needs a priority: the highest that applies decides"
        )
    currencies = fields.strings("currencies", _currency_code)
    days = fields.typed("date_tolerance_days", int, "a whole number of days")
    if days is not None and not 0 <= days <= MAX_DATE_TOLERANCE_DAYS:
        raise fields.refuse(
            "date_tolerance_days", f"{days} is not in [0, {MAX_DATE_TOLERANCE_DAYS}]"
        )
    return MatchingRule(
        name=name,
        priority=priority,
        accounts=fields.strings("accounts", _account),
        currencies=currencies,
        kinds=frozenset(LineKind(k) for k in fields.strings("kinds", _kind)),
        amount_tolerance=_tolerance(fields, currencies) or fallback.amount_tolerance,
        date_tolerance=fallback.date_tolerance if days is None else timedelta(days=days),
        require=frozenset(Requirement(r) for r in fields.strings("require", _requirement)),
        fees=fallback.fees if "fees" not in stated else _fees(fields),
    )


def _tolerance(fields: _Fields, currencies: frozenset[str]) -> AmountTolerance | None:
    key = "amount_tolerance"
    text = fields.typed(key, str, 'a string: an amount ("0.05") or a percent ("0.5%")')
    if text is None:
        return None
    found = _TOLERANCE.fullmatch(text)
    if found is None:
        raise fields.refuse(key, f'{text!r} is neither an amount ("0.05") nor a percent ("0.5%")')
    number = Decimal(found["number"])
    if found["percent"]:
        if number > 100:
            raise fields.refuse(key, f"{text!r} is over 100%")
        return AmountTolerance(percent=number)
    if number and not currencies:
        raise fields.refuse(
            key,
            f"{text!r} is an amount in the line's currency: name the rule's currencies, or give "
            'a percent ("0.5%")',
        )
    for code in sorted(currencies):
        try:
            parse_money(text, code, field=key, allow_zero=True)
        except InvalidRequestError as err:
            raise fields.refuse(key, err.problem) from None
    return AmountTolerance(amount=number)


def _fees(fields: _Fields) -> dict[str, Money]:
    table = fields.typed("fees", dict, 'a table of amounts by currency ({ EUR = "0.25" })')
    fees: dict[str, Money] = {}
    for code, amount in (table or {}).items():
        key = f"fees.{code}"
        try:
            _currency_code(code)
        except ValueError as err:
            raise fields.refuse(key, str(err)) from None
        if not isinstance(amount, str):
            raise fields.refuse(key, f'must be a string such as "0.25", not {amount!r}')
        try:
            fees[code] = parse_money(amount, code, field=key, allow_zero=True)
        except InvalidRequestError as err:
            raise fields.refuse(key, err.problem) from None
    return fees


def _currency_code(code: str) -> str:
    try:
        return currency(code).code
    except InvalidRequestError as err:
        raise ValueError(err.problem) from None


def _account(account: str) -> str:
    if len(account) > ACCOUNT_LENGTH:
        raise ValueError(f"longer than {ACCOUNT_LENGTH} characters: no statement names it")
    return account


def _kind(kind: str) -> str:
    return _one_of(kind, [k.value for k in LineKind])


def _requirement(requirement: str) -> str:
    return _one_of(requirement, [r.value for r in Requirement])


def _one_of(value: str, allowed: list[str]) -> str:
    if value not in allowed:
        raise ValueError(f"{value!r} is not one of {', '.join(allowed)}")
    return value
