"""The reconciliation pack's figures derived from its own content: a statement's line counts, a
break's age, an account's proof from its statements' proofs. The same code makes them and
recomputes them when the pack is checked, so a figure that disagrees was changed."""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from datetime import datetime

from sagas.foundations import Money
from sagas.verify.evidence import money_of
from sagas.verify.reconciliation._reconciliation_model import (
    AccountProof,
    LineCounts,
    LineEvidence,
    StatementProof,
)


def counts_of(read: int, lines: Sequence[LineEvidence]) -> LineCounts:
    def count(status: str) -> int:
        return sum(line.status == status for line in lines)

    return LineCounts(read=read, new=count("new"), known=count("known"), refused=count("refused"))


def age_seconds(opened_at: str, closed_at: str | None, as_of: str) -> int:
    """From opening to closing, or to `as_of` while not closed; never below zero."""
    until = datetime.fromisoformat(closed_at or as_of)
    return max(0, int((until - datetime.fromisoformat(opened_at)).total_seconds()))


def account_proof(
    account: str, currency: str, statements: Sequence[StatementProof]
) -> AccountProof:
    """The account's proof from its statements' proofs, in the order they chain; a statement
    delivered again (a copy, a correction: the same id and balance days) takes no second place
    in the chain, as its balance breaks see it."""
    chain: list[StatementProof] = []
    for proof in statements:
        if all(_delivered(proof) != _delivered(seen) for seen in chain):
            chain.append(proof)
    movements = Money.of(0, currency)
    for proof in chain:
        movements = movements + money_of(proof.statement_lines)
    chained = all(before.closing == after.opening for before, after in itertools.pairwise(chain))
    nothing = str(Money.of(0, currency))
    return AccountProof(
        account=account,
        currency=currency,
        opening=chain[0].opening if chain else nothing,
        movements=str(movements),
        closing=chain[-1].closing if chain else nothing,
        chained=chained,
        balances=chained and all(proof.balances for proof in statements),
        statements=list(statements),
    )


def _delivered(proof: StatementProof) -> tuple[str, str | None, str | None]:
    return (proof.statement_id, proof.opening_date, proof.closing_date)
