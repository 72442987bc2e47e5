"""Matching statement lines to rail movements: by reference first, then by amount, currency
and value date; what is left over, or differs, is a finding (a break to open). Each line is
judged by its matching rule (`MatchingRules.rule_for`), which its findings name."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime

from sagas.reconcile.formats import NEVER_BY_AMOUNT, LineKind, kinds_agree, reason_text
from sagas.reconcile.matching._batch import Batches
from sagas.reconcile.matching._booked import BookedLine, Finding, Outcome
from sagas.reconcile.matching._breaks import BreakKind
from sagas.reconcile.matching._matching_rules import (
    DEFAULT_RULE,
    MatchingRule,
    MatchingRules,
    Requirement,
)
from sagas.reconcile.matching._movements import RailMovement
from sagas.reconcile.matching._policy import ReconcilePolicy
from sagas.reconcile.matching._value_dates import value_date_finding

_OWN_BREAKS = {LineKind.FEE: BreakKind.FEE, LineKind.INTEREST: BreakKind.INTEREST}


def match(
    lines: Iterable[BookedLine],
    movements: Iterable[RailMovement],
    matched: dict[int, int],
    covered_until: dict[str, datetime],
    policy: ReconcilePolicy,
    matched_transactions: dict[int, int] | None = None,
    rules: MatchingRules | None = None,
) -> Outcome:
    """`matched` is line id → entry id as stored, `matched_transactions` transaction id →
    entry id; `covered_until` per currency how far the imported statements are complete.
    `rules` judge each line (none: the policy's, as the default rule); the policy's cut-off
    and grace judge each movement no line books."""
    ruled = rules or MatchingRules.of(policy)
    by_entry = {movement.entry_id: movement for movement in movements}
    by_reference = {(m.reference, m.direction): m for m in by_entry.values()}
    of_transactions = matched_transactions or {}
    outcome = Outcome(
        matched_lines=set(matched),
        matched_entries=set(matched.values()) | set(of_transactions.values()),
    )
    batches = Batches(by_reference, by_entry, of_transactions, outcome)
    pending: list[tuple[BookedLine, MatchingRule]] = []
    for line in sorted(lines, key=lambda booked: booked.line_id):
        rule = ruled.rule_for(line)
        if line.is_batch:
            batches.match(line, rule)
            continue
        if line.line_id in matched:
            found = by_entry.get(matched[line.line_id])
            if found is not None:
                outcome.findings += _differences(line, found, rule)
            continue
        movement = by_reference.get((line.end_to_end_id or "", line.direction))
        if movement is None or not kinds_agree(line.kind, movement.kind):
            pending.append((line, rule))
        elif movement.entry_id in outcome.matched_entries:
            outcome.findings.append(_judged(_duplicate(line, movement), rule))
        else:
            _pair(outcome, line, movement, "reference")
            outcome.findings += _differences(line, movement, rule)
    for line, rule in pending:
        movement = _by_amount(line, by_entry.values(), outcome, rule)
        if movement is not None:
            _pair(outcome, line, movement, "amount_date")
            outcome.findings += _differences(line, movement, rule)
        else:
            outcome.findings.append(_judged(_missing_in_ledger(line), rule))
    for movement in by_entry.values():
        covered = covered_until.get(movement.amount.currency.code)
        unmatched = movement.entry_id not in outcome.matched_entries
        if unmatched and covered is not None and policy.overdue(movement.booked_at, covered):
            outcome.findings.append(_missing_in_statement(movement, covered))
    return outcome


def _judged(finding: Finding, rule: MatchingRule) -> Finding:
    return replace(finding, detail=f"{finding.detail} (rule {rule.name})")


def _pair(outcome: Outcome, line: BookedLine, movement: RailMovement, method: str) -> None:
    outcome.matches.append((line.line_id, movement.entry_id, method))
    outcome.matched_lines.add(line.line_id)
    outcome.matched_entries.add(movement.entry_id)


def _by_amount(
    line: BookedLine,
    movements: Iterable[RailMovement],
    outcome: Outcome,
    rule: MatchingRule,
) -> RailMovement | None:
    """Only a line that names no reference of its own is matched by amount and date: one that
    names a reference fundsaga never sent is not fundsaga's; and only when its rule does not
    require the end-to-end id."""
    if line.end_to_end_id or line.kind in NEVER_BY_AMOUNT:
        return None
    if rule.requires(Requirement.END_TO_END_ID):
        return None
    candidates = [
        movement
        for movement in movements
        if movement.entry_id not in outcome.matched_entries
        and kinds_agree(line.kind, movement.kind)
        and movement.direction is line.direction
        and movement.amount.currency.code == line.currency
        and rule.amount_within(
            movement.amount.minor - line.amount_minor, movement.amount.minor, line.currency
        )
        and abs(movement.booked_at.date() - line.value_date) <= rule.date_tolerance
    ]
    return min(
        candidates,
        key=lambda m: (abs(m.booked_at.date() - line.value_date), m.entry_id),
        default=None,
    )


def _differences(line: BookedLine, movement: RailMovement, rule: MatchingRule) -> list[Finding]:
    ledger = movement.amount
    if ledger.currency.code != line.currency:
        detail = f"the ledger moved {ledger}, the statement booked {line.currency}"
        found = [_paired(BreakKind.CURRENCY_MISMATCH, line, movement, detail, None, None)]
        return [_judged(finding, rule) for finding in found]
    found = []
    units = f"(minor units of {line.currency})"
    if not rule.amount_within(ledger.minor - line.amount_minor, ledger.minor, line.currency):
        detail = (
            f"the ledger moved {ledger.minor}, the statement booked {line.amount_minor} {units}"
        )
        kind = BreakKind.AMOUNT_MISMATCH
        found.append(_paired(kind, line, movement, detail, ledger.minor, line.amount_minor))
    charged, agreed = line.fee_minor or 0, rule.expected_fee(line.currency)
    if charged != agreed:
        detail = f"the rail charged a fee of {charged}, {agreed} is agreed {units}"
        found.append(_paired(BreakKind.FEE_DIFFERENCE, line, movement, detail, agreed, charged))
    late = value_date_finding(line, movement, rule)
    if late is not None:
        found.append(late)
    return [_judged(finding, rule) for finding in found]


def _paired(
    kind: BreakKind,
    line: BookedLine,
    movement: RailMovement,
    detail: str,
    ledger_minor: int | None,
    statement_minor: int | None,
) -> Finding:
    return Finding(
        kind=kind,
        currency=line.currency,
        detail=detail,
        line_id=line.line_id,
        entry_id=movement.entry_id,
        reference=movement.reference,
        ledger_minor=ledger_minor,
        statement_minor=statement_minor,
    )


def _duplicate(line: BookedLine, movement: RailMovement) -> Finding:
    return Finding(
        kind=BreakKind.DUPLICATE,
        currency=line.currency,
        detail=f"a second line for entry {movement.entry_id}, already matched",
        line_id=line.line_id,
        entry_id=movement.entry_id,
        reference=movement.reference,
        ledger_minor=movement.amount.minor,
        statement_minor=line.amount_minor,
    )


def _missing_in_ledger(line: BookedLine) -> Finding:
    own = _OWN_BREAKS.get(line.kind)
    what = f"a {line.direction} of {line.amount_minor}"
    if own is not None:
        detail = f"the rail booked {what} as {line.kind} on its own line ({line.bank_reference})"
        detail += ", which no ledger movement books; it is never matched to a payout"
        return Finding(
            kind=own,
            currency=line.currency,
            detail=detail,
            line_id=line.line_id,
            reference=line.end_to_end_id,
            statement_minor=line.amount_minor,
        )
    if line.kind is LineKind.RETURN:
        detail = (
            f"the rail returned {line.amount_minor} of the payout {line.end_to_end_id or '?'}"
            f", reason {reason_text(line.return_reason)}: no rail movement of the ledger books "
            "the return"
        )
    else:
        detail = f"the statement booked {what} that no rail movement of the ledger explains"
    return Finding(
        kind=BreakKind.MISSING_IN_LEDGER,
        currency=line.currency,
        detail=detail,
        line_id=line.line_id,
        reference=line.end_to_end_id,
        statement_minor=line.amount_minor,
    )


def _missing_in_statement(movement: RailMovement, covered: datetime) -> Finding:
    return Finding(
        kind=BreakKind.MISSING_IN_STATEMENT,
        currency=movement.amount.currency.code,
        detail=f"booked {movement.booked_at.isoformat()} by {movement.saga_id}, on no statement "
        f"complete up to {covered.isoformat()} "
        f"(rule {DEFAULT_RULE}: the settings' cut-off and grace)",
        entry_id=movement.entry_id,
        reference=movement.reference,
        ledger_minor=movement.amount.minor,
    )
