"""Each proof of cash of a reconciliation pack recomputed from its own figures and from the
statement lines the pack lists: opening + lines = closing, the ledger's balance, the difference
and what the reconciling items explain."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sagas.foundations import Money
from sagas.verify.evidence import money_of
from sagas.verify.reconciliation._reconciliation_model import (
    ProofItemEvidence,
    ReconciliationPack,
    StatementEvidence,
    StatementProof,
)


def proof_problems(pack: ReconciliationPack) -> Iterator[str]:
    statements = {(f.file_id, s.position): s for f in pack.files for s in f.statements}
    for account in pack.proofs:
        for proof in account.statements:
            where = f"the proof of statement {proof.statement_id} ({proof.place})"
            statement = statements.get((proof.file_id, proof.position))
            if statement is None or statement.statement_id != proof.statement_id:
                yield f"{where}: its statement is not in the inventory"
                continue
            yield from _figures(where, proof)
            yield from _against_lines(where, proof, statement)


def _figures(where: str, proof: StatementProof) -> Iterator[str]:
    opening, closing = money_of(proof.opening), money_of(proof.closing)
    lines, ledger = money_of(proof.statement_lines), money_of(proof.ledger_movements)
    balance = opening + ledger
    difference = closing - balance
    explained = _sum(
        closing.currency.code,
        [*proof.unmatched_lines, *proof.amount_differences, *proof.charges],
        proof.unmatched_movements,
    )
    adds_up = opening + lines == closing
    balances = adds_up and difference == explained
    items = [*proof.unmatched_lines, *proof.unmatched_movements, *proof.amount_differences]
    left = any(money_of(item.amount).minor for item in [*items, *proof.charges])
    recomputed = (
        adds_up,
        str(balance),
        str(difference),
        str(explained),
        balances,
        balances and difference.minor == 0 and not left,
    )
    shown = (
        proof.adds_up,
        proof.ledger_balance,
        proof.difference,
        proof.explained,
        proof.balances,
        proof.reconciled,
    )
    if recomputed != shown:
        yield f"{where}: its figures do not follow from its balances and items: changed"


def _sum(
    code: str, added: Sequence[ProofItemEvidence], taken: Sequence[ProofItemEvidence]
) -> Money:
    total = Money.of(0, code)
    for item in added:
        total = total + money_of(item.amount)
    for item in taken:
        total = total - money_of(item.amount)
    return total


def _against_lines(
    where: str, proof: StatementProof, statement: StatementEvidence
) -> Iterator[str]:
    """The statement's lines as the inventory lists them move what the proof says they do."""
    moved = Money.of(0, statement.currency)
    signed: dict[int, Money] = {}
    for line in statement.lines:
        if line.line_id is None or line.amount is None:
            continue
        amount = money_of(line.amount)
        signed[line.line_id] = amount if line.direction == "credit" else -amount
        moved = moved + signed[line.line_id]
    for charge in proof.charges:
        moved = moved + money_of(charge.amount)
    if str(moved) != proof.statement_lines:
        yield f"{where}: its lines move {proof.statement_lines}, those listed {moved}: changed"
    for item in proof.unmatched_lines:
        if item.side != "statement" or str(signed.get(item.item_id)) != item.amount:
            yield f"{where}: unmatched line {item.item_id} is not a line of its statement as listed"
