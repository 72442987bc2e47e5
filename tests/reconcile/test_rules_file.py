"""The matching rules file (FUNDSAGA_RECONCILE_RULES) is read whole when the worker starts: a bad
file is refused with an error naming the rule and its field, so no worker matches under half of
it; the settings' policy is the default rule."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from sagas.foundations import InvalidRequestError, Money, Settings
from sagas.reconcile import (
    AmountTolerance,
    LineKind,
    MatchingRule,
    ReconcilePolicy,
    Requirement,
    StatementRules,
    load_rules,
    parse_rules,
)

POLICY = ReconcilePolicy()
GOOD = """
[[rules]]
name = "sepa-eur"
priority = 20
accounts = ["DE89370400440532013000", "NL91ABNA0417164300"]
currencies = ["EUR"]
kinds = ["payout", "return"]
amount_tolerance = "0.05"
date_tolerance_days = 1
require = ["end_to_end_id", "value_date"]
fees = { EUR = "0.25" }
"""


def rule(body: str, name: str = "r") -> str:
    return f'[[rules]]\nname = "{name}"\npriority = 1\n{body}\n'


def test_a_rule_states_every_field_it_is_given() -> None:
    (sepa, default) = parse_rules(GOOD, POLICY).rules

    assert sepa == MatchingRule(
        name="sepa-eur",
        priority=20,
        accounts=frozenset({"DE89370400440532013000", "NL91ABNA0417164300"}),
        currencies=frozenset({"EUR"}),
        kinds=frozenset({LineKind.PAYOUT, LineKind.RETURN}),
        amount_tolerance=AmountTolerance(amount=Decimal("0.05")),
        date_tolerance=timedelta(days=1),
        require=frozenset({Requirement.END_TO_END_ID, Requirement.VALUE_DATE}),
        fees={"EUR": Money.of(25, "EUR")},
    )
    assert default == MatchingRule.default(POLICY)


@pytest.mark.parametrize(
    ("text", "field", "says"),
    [
        (rule('amount_tolerance = "abc"'), "rules[0].amount_tolerance", "neither an amount"),
        (rule("amount_tolerance = 0.05"), "rules[0].amount_tolerance", "must be a string"),
        (rule('amount_tolerance = "-1%"'), "rules[0].amount_tolerance", "neither an amount"),
        (rule('amount_tolerance = "101%"'), "rules[0].amount_tolerance", "over 100%"),
        (rule('amount_tolerance = "0.05"'), "rules[0].amount_tolerance", "name the rule's"),
        (
            rule('currencies = ["JPY"]\namount_tolerance = "0.5"'),
            "rules[0].amount_tolerance",
            "more decimals than JPY",
        ),
        (rule('colour = "red"'), "rules[0].colour", "unknown field"),
        (rule('kinds = ["wire"]'), "rules[0].kinds[0]", "'wire' is not one of"),
        (rule('currencies = ["EUR", "XYZ"]'), "rules[0].currencies[1]", "unknown currency"),
        (rule('currencies = ["EUR", "EUR"]'), "rules[0].currencies[1]", "listed twice"),
        (rule("accounts = []"), "rules[0].accounts", "leave the field out"),
        (rule('accounts = "NL91"'), "rules[0].accounts", "a list of strings"),
        (rule(f'accounts = ["{"9" * 65}"]'), "rules[0].accounts[0]", "longer than 64"),
        (rule('require = ["counterparty"]'), "rules[0].require[0]", "not one of"),
        (rule("date_tolerance_days = 40"), "rules[0].date_tolerance_days", "not in [0, 31]"),
        (rule("date_tolerance_days = true"), "rules[0].date_tolerance_days", "whole number"),
        (rule('fees = { EUR = "0.255" }'), "rules[0].fees.EUR", "more decimals than EUR"),
        (rule("fees = { EUR = 0.25 }"), "rules[0].fees.EUR", "must be a string"),
        (rule('fees = { eur = "0.25" }'), "rules[0].fees.eur", "unknown currency"),
        ('[[rules]]\nname = "p"\n', "rules[0].priority", "needs a priority"),
        ("[[rules]]\npriority = 1\n", "rules[0].name", "needs a name"),
        (rule("", name="default"), "rules[0].name", "the settings' rule"),
        (rule("") + rule("", name="s"), "rules[1].priority", "1 is rules[0]'s too"),
        (
            rule("") + rule("").replace("priority = 1", "priority = 2"),
            "rules[1].name",
            "'r' is rules[0]'s too",
        ),
        ('version = 2\n[[rules]]\nname = "r"\npriority = 1\n', "version", "unknown field"),
        ('rules = "none"\n', "rules", "array of tables"),
        (rule('name = "twice"'), "FUNDSAGA_RECONCILE_RULES", "Cannot overwrite a value"),
        (rule("fees = { EUR = '1', EUR = '2' }"), "FUNDSAGA_RECONCILE_RULES", "Duplicate"),
        ("[[rules]\n", "FUNDSAGA_RECONCILE_RULES", "not valid TOML"),
    ],
)
def test_a_bad_rules_file_is_refused_naming_the_rule_and_field(
    text: str, field: str, says: str
) -> None:
    with pytest.raises(InvalidRequestError) as refused:
        parse_rules(text, POLICY)

    assert refused.value.field == field
    assert says in refused.value.problem


def test_an_error_in_a_later_rule_names_it_by_index_and_name() -> None:
    text = GOOD + rule('amount_tolerance = "five"', name="cards")

    with pytest.raises(InvalidRequestError) as refused:
        parse_rules(text, POLICY)

    assert str(refused.value) == (
        "rules[1].amount_tolerance: rule 'cards' in FUNDSAGA_RECONCILE_RULES: 'five' is neither "
        'an amount ("0.05") nor a percent ("0.5%")'
    )


def test_the_worker_s_settings_read_the_file(tmp_path: Path) -> None:
    path = tmp_path / "rules.toml"
    path.write_text(GOOD, encoding="utf-8")
    settings = Settings(FUNDSAGA_RECONCILE_RULES=str(path), FUNDSAGA_RECONCILE_FEES="EUR=0.10")

    rules = StatementRules.of(settings).matching_rules

    assert [r.name for r in rules.rules] == ["sepa-eur", "default"]
    assert rules.default.fees == {"EUR": Money.of(10, "EUR")}


def test_without_a_rules_file_the_settings_are_the_one_rule() -> None:
    rules = StatementRules.of(Settings(FUNDSAGA_RECONCILE_AMOUNT_TOLERANCE=4)).matching_rules

    assert [(r.name, r.amount_tolerance) for r in rules.rules] == [
        ("default", AmountTolerance(minor=4))
    ]


def test_a_rules_file_that_cannot_be_read_is_refused_naming_the_setting(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequestError) as refused:
        load_rules(tmp_path / "missing.toml", POLICY)

    assert refused.value.field == "FUNDSAGA_RECONCILE_RULES"
    assert "missing.toml" in refused.value.problem


def test_the_documented_example_is_a_valid_rules_file() -> None:
    docs = Path(__file__).resolve().parents[2] / "docs" / "reconciliation.md"
    found = re.search(r"<!-- example:rules -->\n```toml\n(.*?)\n```", docs.read_text(), re.DOTALL)
    assert found is not None, "no toml block after <!-- example:rules -->"

    sepa, acquirer, default = parse_rules(found.group(1), POLICY).rules

    assert (sepa.name, sepa.require) == (
        "sepa-eur",
        frozenset({Requirement.END_TO_END_ID, Requirement.VALUE_DATE}),
    )
    assert (acquirer.amount_tolerance, acquirer.fees) == (
        AmountTolerance(percent=Decimal("0.5")),
        {},
    )
    assert default.name == "default"
