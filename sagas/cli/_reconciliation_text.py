"""The reconciliation pack as text an auditor reads top to bottom: the verdict and the findings,
what it covers and who signed it, the statement inventory with every line, the break register
with each operator's act, and the proof of cash per account and currency."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sagas.verify import (
    AccountProof,
    BreakAct,
    BreakEvidence,
    FileEvidence,
    LineEvidence,
    MatchEvidence,
    OperatorIdentity,
    ProofItemEvidence,
    ReconciliationReport,
    StatementEvidence,
    StatementProof,
)


def pack_lines(report: ReconciliationReport, unsigned: str = "") -> list[str]:
    """`unsigned`: why the report carries no signature."""
    pack = report.pack
    scope, chains = pack.scope, pack.chains
    signature = report.signature
    lines = [f"Reconciliation pack: {pack.verdict.summary}"]
    lines += [f"FINDING  {finding}" for finding in pack.findings] or ["no findings"]
    lines += [
        f"period: {scope.since or 'from the first statement'} to {scope.until or 'the last'}; "
        f"accounts: {', '.join(scope.accounts) or 'every one'}; ages as of {scope.as_of} "
        "(database clock)",
        f"audit chain: {'intact' if chains.audit.ok else 'BROKEN'}, {chains.audit.records} "
        f"records; ledger journal: {'intact' if chains.journal.ok else 'BROKEN'}, sealed to "
        f"entry {chains.journal.sealed_head_sequence}",
        f"signed by {signature.key_id}"
        if signature is not None
        else f"not signed: {unsigned or 'no signing key'}",
        "",
        "STATEMENT INVENTORY",
    ]
    lines += [text for file in pack.files for text in _file(file)] or ["  no statement"]
    lines += ["", "BREAK REGISTER"]
    lines += [text for found in pack.breaks for text in _break(found)] or ["  no break"]
    lines += ["", "PROOF OF CASH"]
    lines += [text for proof in pack.proofs for text in _account(proof)] or [
        "  no statement of the period states its balances"
    ]
    return lines


def who(identity: OperatorIdentity | None) -> str:
    if identity is None:
        return "nobody"
    verified = f"{identity.issuer or '?'} / {identity.subject or '?'}"
    return f"{identity.operator} ({verified})"


def match_text(match: MatchEvidence | None, breaks: Sequence[int]) -> str:
    found = []
    if match is not None:
        saga = f", saga {match.saga_id}" if match.saga_id else ""
        found.append(f"matched to entry {match.entry_id}{saga} ({match.method})")
    if breaks:
        found.append(f"break {', '.join(map(str, breaks))}")
    return "; ".join(found) or "unmatched"


def _file(file: FileEvidence) -> Iterator[str]:
    importer = who(file.verified_importer) if file.verified_importer else file.imported_by
    record = file.import_record
    yield (
        f"  file {file.file_id} {file.name} ({file.format}) sha256 {file.sha256}; imported "
        f"{file.imported_at} by {importer}, action {file.action_id or 'NONE'}, record "
        f"{record.sequence if record else 'NONE'}"
    )
    for statement in file.statements:
        yield from _statement(statement)


def _place(position: int) -> str:
    return "" if position == 1 else f" (its statement {position})"


def _statement(statement: StatementEvidence) -> Iterator[str]:
    counts = statement.counts
    period = f"{statement.period_start or '?'} to {statement.period_end or '?'}"
    opening = f"{statement.opening} ({statement.opening_date})" if statement.opening else "none"
    closing = f"{statement.closing} ({statement.closing_date})" if statement.closing else "none"
    yield (
        f"    statement {statement.statement_id}{_place(statement.position)}, account "
        f"{statement.account} "
        f"({statement.currency}), {period}; opening {opening}, closing {closing}"
    )
    stated = "" if statement.stated_counts is None else " (as its import's record counts)"
    yield (
        f"      lines: {counts.read} read = {counts.new} new + {counts.known} known + "
        f"{counts.refused} refused{stated}"
    )
    if statement.breaks:
        yield f"      its balances: break {', '.join(map(str, statement.breaks))}"
    for line in statement.lines:
        yield from _line(line)


def _line(line: LineEvidence) -> Iterator[str]:
    if line.status == "known":
        yield f"      {line.position}. known: kept before, listed with the file that kept it"
        return
    if line.status == "refused":
        yield f"      {line.position}. refused: {match_text(None, line.breaks)}"
        return
    references = " ".join(part for part in (line.bank_reference, line.end_to_end_id) if part)
    fee = f", fee {line.fee}" if line.fee else ""
    yield (
        f"      {line.position}. line {line.line_id} {references or '(no reference)'}: "
        f"{line.direction} {line.amount} {line.kind}{fee}{returned(line)}, booked "
        f"{line.booking_date}: {match_text(line.match, line.breaks)}"
    )
    yield from (f"         {text}" for text in batch_lines(line))


def returned(line: LineEvidence) -> str:
    """Of a line of one returned transaction, the rail's reason."""
    reasons = [t.return_reason for t in line.transactions if t.return_reason]
    return f" (returned, {reasons[0]})" if len(line.transactions) == 1 and reasons else ""


def batch_lines(line: LineEvidence) -> list[str]:
    """Each transaction of a batch line with its own match; a line of one transaction is
    matched as a line, so it has none of its own."""
    if len(line.transactions) < 2:
        return []
    return [
        f"transaction {t.position} {t.end_to_end_id or '-'} {t.amount or '?'}"
        + (f" returned {t.return_reason}" if t.return_reason else "")
        + f": {match_text(t.match, t.breaks)}"
        for t in line.transactions
    ]


def _break(found: BreakEvidence) -> Iterator[str]:
    about = [f"line {found.line_id}"] if found.line_id else []
    about += [f"entry {found.entry_id}"] if found.entry_id else []
    closed = f", closed {found.closed_at}" if found.closed_at else ", NOT CLOSED"
    yield (
        f"  break {found.break_id} {found.kind} ({found.status}) {', '.join(about)}; "
        f"difference {found.difference or '-'}; opened {found.opened_at}{closed}; age "
        f"{_age(found.age_seconds)}"
    )
    yield f"    {found.detail}"
    for act in found.acts:
        yield f"    {_act(act)}"
    adjusting = found.adjustment
    if adjusting is not None:
        legs = ", ".join(f"{leg.account_id} {leg.amount}" for leg in adjusting.postings)
        yield f"    adjusting entry {adjusting.entry_id} ({adjusting.idempotency_key}): {legs}"


def _act(act: BreakAct) -> str:
    note = "no note of theirs recorded" if act.note is None else f"note {act.note!r}"
    evidence = f", evidence {act.evidence!r}" if act.evidence else ""
    record = f"record {act.record.sequence}"
    return f"{act.act} {act.at} by {who(act.operator)}: {note}{evidence} ({record})"


def _age(seconds: int) -> str:
    days, hours, minutes = seconds // 86400, seconds % 86400 // 3600, seconds % 3600 // 60
    return f"{days} d {hours} h" if days else f"{hours} h {minutes} min"


def _account(account: AccountProof) -> Iterator[str]:
    verdict = "balances" if account.balances else "DOES NOT BALANCE"
    chained = "" if account.chained else " (its statements do not chain)"
    yield (
        f"  account {account.account} ({account.currency}): opening {account.opening} + "
        f"movements {account.movements} = closing {account.closing}: {verdict}{chained}"
    )
    for proof in account.statements:
        yield from _proof(proof)


def _proof(proof: StatementProof) -> Iterator[str]:
    verdict = "balances" if proof.balances else "DOES NOT BALANCE"
    if proof.reconciled:
        verdict += ", nothing to reconcile"
    yield f"    statement {proof.statement_id} ({proof.place}): {verdict}"
    yield (
        f"      opening {proof.opening} + lines {proof.statement_lines}; closing stated "
        f"{proof.closing}" + ("" if proof.adds_up else " (the statement does not add up)")
    )
    yield (
        f"      ledger: opening {proof.opening} + rail movements {proof.ledger_movements} = "
        f"{proof.ledger_balance} at the statement's end; difference {proof.difference}, "
        f"explained {proof.explained}"
    )
    for title, items in (
        ("+ statement line no movement explains", proof.unmatched_lines),
        ("- ledger movement no line books", proof.unmatched_movements),
        ("+ matched, amounts differ by", proof.amount_differences),
        ("+ charge debited on top of its line", proof.charges),
    ):
        yield from (f"        {title}: {_item(item)}" for item in items)


def _item(item: ProofItemEvidence) -> str:
    saga = f" (saga {item.saga_id})" if item.saga_id else ""
    kind = "line" if item.side == "statement" else "entry"
    return f"{kind} {item.item_id} {item.reference or '-'}{saga} {item.amount} on {item.day}"
