"""Batch lines: one booked entry holding several transactions (a batch of payouts, a batch
return). Each transaction is matched on its own, by its end-to-end id, never by amount; the
entry's amount must be the sum of its transactions'."""

from __future__ import annotations

from dataclasses import replace

from sagas.reconcile.formats import LineDirection, LineKind, kinds_agree, reason_text
from sagas.reconcile.matching._booked import BookedLine, BookedTransaction, Finding, Outcome
from sagas.reconcile.matching._breaks import BreakKind
from sagas.reconcile.matching._matching_rules import MatchingRule
from sagas.reconcile.matching._movements import RailMovement
from sagas.reconcile.matching._value_dates import value_date_finding

BATCH_METHOD = "batch_reference"


class Batches:
    """Matches batch lines' transactions into `outcome`, as the line matcher does lines, each
    under its line's rule."""

    def __init__(
        self,
        by_reference: dict[tuple[str, LineDirection], RailMovement],
        by_entry: dict[int, RailMovement],
        matched: dict[int, int],
        outcome: Outcome,
    ) -> None:
        self.by_reference = by_reference
        self.by_entry = by_entry
        self.matched = matched
        self.outcome = outcome

    def match(self, line: BookedLine, rule: MatchingRule) -> None:
        findings: list[Finding] = []
        findings += _total(line, rule)
        every_one = True
        for transaction in line.transactions:
            stored = self.matched.get(transaction.transaction_id)
            if stored is not None:
                movement = self.by_entry.get(stored)
                if movement is not None:
                    findings += _difference(line, transaction, movement, rule)
                continue
            movement = self.by_reference.get((transaction.end_to_end_id or "", line.direction))
            if movement is None or not kinds_agree(line.kind, movement.kind):
                every_one = False
                findings.append(_missing_in_ledger(line, transaction))
            elif movement.entry_id in self.outcome.matched_entries:
                every_one = False
                findings.append(_duplicate(line, transaction, movement))
            else:
                self.outcome.transaction_matches.append(
                    (transaction.transaction_id, movement.entry_id, BATCH_METHOD)
                )
                self.outcome.matched_entries.add(movement.entry_id)
                findings += _difference(line, transaction, movement, rule)
        if every_one:
            self.outcome.matched_lines.add(line.line_id)
        self.outcome.findings += [
            replace(finding, detail=f"{finding.detail} (rule {rule.name})") for finding in findings
        ]


def _units(line: BookedLine) -> str:
    return f"(minor units of {line.currency})"


def _total(line: BookedLine, rule: MatchingRule) -> list[Finding]:
    """The entry's amount against its transactions', and its charges against the fee agreed
    for each of them."""
    found: list[Finding] = []
    count = len(line.transactions)
    stated = [t.amount_minor for t in line.transactions if t.amount_minor is not None]
    entry = f"entry {line.bank_reference or line.line_id}"
    if len(stated) < count:
        detail = f"{entry} booked {line.amount_minor}; {count - len(stated)} of its {count} "
        detail += "transactions state no amount, so the total cannot be checked"
    elif sum(stated) != line.amount_minor:
        detail = f"{entry} booked {line.amount_minor}, its {count} transactions add up to "
        detail += f"{sum(stated)} {_units(line)}"
    else:
        detail = ""
    if detail:
        found.append(
            Finding(
                kind=BreakKind.BATCH_TOTAL_MISMATCH,
                currency=line.currency,
                detail=detail,
                line_id=line.line_id,
                reference=line.bank_reference or None,
                ledger_minor=sum(stated),
                statement_minor=line.amount_minor,
            )
        )
    charged, agreed = line.fee_minor or 0, rule.expected_fee(line.currency) * count
    if line.kind is not LineKind.RETURN and charged != agreed:
        detail = f"the rail charged {entry} a fee of {charged}, {agreed} is agreed for its "
        detail += f"{count} transactions {_units(line)}"
        found.append(
            Finding(
                kind=BreakKind.FEE_DIFFERENCE,
                currency=line.currency,
                detail=detail,
                line_id=line.line_id,
                reference=line.bank_reference or None,
                ledger_minor=agreed,
                statement_minor=charged,
            )
        )
    return found


def _difference(
    line: BookedLine,
    transaction: BookedTransaction,
    movement: RailMovement,
    rule: MatchingRule,
) -> list[Finding]:
    ledger, booked = movement.amount, transaction.amount_minor
    if ledger.currency.code != line.currency:
        detail = f"the ledger moved {ledger}, transaction {transaction.position} of entry "
        detail += f"{line.bank_reference} is in {line.currency}"
        return [_about(BreakKind.CURRENCY_MISMATCH, line, transaction, movement, detail)]
    found: list[Finding] = []
    late = value_date_finding(line, movement, rule, transaction)
    if late is not None:
        found.append(late)
    if booked is None or rule.amount_within(ledger.minor - booked, ledger.minor, line.currency):
        return found
    detail = f"the ledger moved {ledger.minor}, transaction {transaction.position} of entry "
    detail += f"{line.bank_reference} booked {booked} {_units(line)}"
    found.insert(0, _about(BreakKind.AMOUNT_MISMATCH, line, transaction, movement, detail))
    return found


def _about(
    kind: BreakKind,
    line: BookedLine,
    transaction: BookedTransaction,
    movement: RailMovement,
    detail: str,
) -> Finding:
    return Finding(
        kind=kind,
        currency=line.currency,
        detail=detail,
        line_id=line.line_id,
        entry_id=movement.entry_id,
        reference=movement.reference,
        ledger_minor=movement.amount.minor,
        statement_minor=transaction.amount_minor,
        transaction_id=transaction.transaction_id,
    )


def _duplicate(line: BookedLine, transaction: BookedTransaction, movement: RailMovement) -> Finding:
    detail = f"transaction {transaction.position} of entry {line.bank_reference} books entry "
    detail += f"{movement.entry_id}, already matched"
    return _about(BreakKind.DUPLICATE, line, transaction, movement, detail)


def _missing_in_ledger(line: BookedLine, transaction: BookedTransaction) -> Finding:
    where = f"transaction {transaction.position} of entry {line.bank_reference}"
    amount = "?" if transaction.amount_minor is None else str(transaction.amount_minor)
    if line.kind is LineKind.RETURN:
        detail = f"{where} returns {amount} of the payout {transaction.end_to_end_id or '?'}, "
        detail += f"reason {reason_text(transaction.return_reason)}: no rail movement of the "
        detail += "ledger books the return"
    else:
        reference = transaction.end_to_end_id or "no end-to-end id"
        detail = f"{where} ({reference}) booked a {line.direction} of {amount} that no rail "
        detail += "movement of the ledger explains"
    return Finding(
        kind=BreakKind.MISSING_IN_LEDGER,
        currency=line.currency,
        detail=detail,
        line_id=line.line_id,
        reference=transaction.end_to_end_id,
        statement_minor=transaction.amount_minor,
        transaction_id=transaction.transaction_id,
    )
