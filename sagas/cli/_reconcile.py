"""`fundsaga reconcile ...`: rail statements imported and matched against the ledger's rail
movements; breaks explained, and resolved by two operators."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer
from pydantic import JsonValue

from sagas.cli._errors import FAILURE
from sagas.cli._invocation import Invocation
from sagas.cli._output import Output, OutputFormat, Shown, emit, listing, said
from sagas.engine import Adjustment, ResolutionView
from sagas.foundations import InvalidRequestError, parse_money
from sagas.reconcile import (
    CLOSED_STATUSES,
    BreakKind,
    BreakStatus,
    BreakView,
    CsvMapping,
    ProofItem,
    ProofOfCash,
    Reconciliation,
    refuse_size,
)
from sagas.registry import load_registry

app = typer.Typer(
    name="reconcile",
    help="Rail statements matched against the ledger; breaks and their resolution.",
    no_args_is_help=True,
)
BreakId = Annotated[int, typer.Argument(metavar="BREAK", help="The break's number.", min=1)]
Note = Annotated[str, typer.Option(help="Why; kept in the audit record.")]
DryRun = Annotated[
    bool,
    typer.Option(
        "--dry-run",
        help="Show what it would keep, match and open under the worker's rules; write nothing.",
    ),
]
BREAK_COLUMNS = ("break", "kind", "status", "reference", "ledger", "statement", "age", "detail")


def reconciliation(invocation: Invocation) -> Reconciliation:
    """The configured ledger's reconciliation, read only: imports, matching and explanations
    run on the worker, under its matching policy."""
    registry = load_registry(invocation.settings.saga_module_names)
    return Reconciliation(invocation.ledger(), registry.definitions().values())


@app.command("import")
def import_(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(metavar="FILE", help="camt.053, camt.054, MT940 or CSV.")],
    csv_mapping: Annotated[
        Path | None, typer.Option(help="For a CSV file: which column holds what (TOML or JSON).")
    ] = None,
    note: Note = "",
    dry_run: DryRun = False,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Send the file to the worker, which keeps its lines with the file's hash and matches them
    under the deployment's rules; the same file twice adds nothing. Exit 1 if any break is
    open (with --dry-run: would be). A file over FUNDSAGA_STATEMENT_MAX_BYTES is refused
    unread."""
    invocation = Invocation.of(ctx)
    max_bytes = invocation.settings.statement_max_bytes
    content = _read_file(file, max_bytes)
    mapping = None if csv_mapping is None else CsvMapping.from_file(csv_mapping)
    books = reconciliation(invocation)

    async def act() -> dict[str, JsonValue]:
        client = await invocation.client()
        return await client.reconcile_actions(books, max_bytes).import_statement(
            content, name=file.name, csv_mapping=mapping, note=note, dry_run=dry_run
        )

    facts = invocation.run(act())
    if dry_run:
        _finish_dry_run(facts, output)
    verb = "imported" if facts["new"] else "already imported: nothing added"
    line = (
        f"{file.name} ({facts['format']}, sha256 {str(facts['sha256'])[:12]}…) {verb}; "
        f"{facts['matched']} matched now, "
        f"{facts['opened']} break(s) opened, {facts['closed']} closed"
    )
    shown = said(line, facts)
    statements = _listed(facts.get("statements"))
    accounted = [text for each in statements for text in _accounted(each, len(statements))]
    if len(statements) > 1 and isinstance(totals := facts.get("accounted"), dict):
        accounted.append(f"  the file's {len(statements)} statements: {_sums(totals)}")
    _finish(books, Shown(shown.data, lines=[*shown.lines, *accounted]), output)


@app.command()
def run(
    ctx: typer.Context,
    note: Note = "",
    dry_run: DryRun = False,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Match again: movements booked since, and missing lines past the grace period."""
    invocation = Invocation.of(ctx)
    books = reconciliation(invocation)

    async def act() -> dict[str, JsonValue]:
        actions = (await invocation.client()).reconcile_actions(books)
        return await actions.run(note, dry_run=dry_run)

    facts = invocation.run(act())
    if dry_run:
        _finish_dry_run(facts, output)
    line = (
        f"{facts['matched']} matched now, {facts['opened']} break(s) opened, "
        f"{facts['closed']} closed"
    )
    _finish(books, said(line, facts), output)


@app.command()
def breaks(
    ctx: typer.Context,
    status: Annotated[BreakStatus | None, typer.Option(case_sensitive=False)] = None,
    kind: Annotated[BreakKind | None, typer.Option(case_sensitive=False)] = None,
    every: Annotated[bool, typer.Option("--all", help="Closed ones too.")] = False,
    output: Output = OutputFormat.TABLE,
) -> None:
    """The breaks still open (explained ones too), or those of a status or kind."""
    books = reconciliation(Invocation.of(ctx))
    found = books.breaks(status=status, kind=kind)
    if status is None and not every:
        found = [b for b in found if b.status not in CLOSED_STATUSES]
    now = books.now()
    records = [_break_json(b, now) for b in found]
    lines = [] if records else ["no breaks"]
    emit(listing(records, BREAK_COLUMNS, lines=lines), output)


@app.command()
def movements(ctx: typer.Context, output: Output = OutputFormat.TABLE) -> None:
    """Every rail movement of the ledger, of every saga type, and where it stands."""
    books = reconciliation(Invocation.of(ctx))
    records = [
        {
            "entry_id": m.movement.entry_id,
            "saga_id": m.movement.saga_id,
            "step": m.movement.step,
            "reference": m.movement.reference,
            "amount": str(m.movement.amount),
            "booked_at": m.movement.booked_at.isoformat(),
            "status": m.status,
        }
        for m in books.movements()
    ]
    columns = ("entry_id", "saga_id", "step", "amount", "booked_at", "status")
    emit(listing(records, columns, lines=[] if records else ["no rail movements"]), output)


@app.command()
def proof(ctx: typer.Context, output: Output = OutputFormat.TABLE) -> None:
    """The proof of cash of each imported statement that states its balances: opening + lines =
    closing, the closing balance against the ledger's rail account at the statement's end, and
    the unmatched lines and movements that explain the difference. Exit 1 if one does not
    balance."""
    books = reconciliation(Invocation.of(ctx))
    proofs = books.proofs_of_cash()
    records = [_proof_json(p) for p in proofs]
    lines = [text for p in proofs for text in _proof_lines(p)] or ["no statement states balances"]
    emit(Shown({"proofs": records}, lines=lines), output)
    if not all(p.balances for p in proofs):
        raise typer.Exit(FAILURE)


def _proof_lines(p: ProofOfCash) -> list[str]:
    verdict = "balances" if p.balances else "DOES NOT BALANCE"
    if p.reconciled:
        verdict += ", nothing to reconcile"
    lines = [
        f"statement {p.statement_id} (file {p.file_id}"
        + ("" if p.position == 1 else f", its statement {p.position}")
        + f"), account {p.account}, "
        f"to {p.period_end.isoformat() if p.period_end else '-'}: {verdict}",
        f"  opening {p.opening} + lines {p.statement_lines} = {p.opening + p.statement_lines}; "
        f"closing stated {p.closing}"
        + ("" if p.statement_adds_up else " (the statement does not add up)"),
        f"  ledger: opening {p.opening} + rail movements {p.ledger_movements} = "
        f"{p.ledger_balance}; difference {p.difference}, explained {p.explained}",
    ]
    for title, items in (
        ("+ statement line no movement explains", p.unmatched_lines),
        ("- ledger movement no line books", p.unmatched_movements),
        ("+ matched, amounts differ by", p.amount_differences),
        ("+ charge debited on top of its line", p.charges),
    ):
        lines += [f"    {title}: {_item_text(item)}" for item in items]
    return lines


def _item_text(item: ProofItem) -> str:
    return f"{item.side} {item.item_id} {item.reference} {item.amount} on {item.day}"


def _proof_json(p: ProofOfCash) -> dict[str, Any]:
    def items(found: tuple[ProofItem, ...]) -> list[dict[str, Any]]:
        return [
            {
                "side": item.side,
                "id": item.item_id,
                "reference": item.reference,
                "amount": str(item.amount),
                "day": item.day.isoformat(),
            }
            for item in found
        ]

    return {
        "file_id": p.file_id,
        "position": p.position,
        "statement_id": p.statement_id,
        "account": p.account,
        "period_end": p.period_end.isoformat() if p.period_end else None,
        "opening": str(p.opening),
        "statement_lines": str(p.statement_lines),
        "closing": str(p.closing),
        "statement_adds_up": p.statement_adds_up,
        "ledger_movements": str(p.ledger_movements),
        "ledger_balance": str(p.ledger_balance),
        "difference": str(p.difference),
        "explained": str(p.explained),
        "unmatched_lines": items(p.unmatched_lines),
        "unmatched_movements": items(p.unmatched_movements),
        "amount_differences": items(p.amount_differences),
        "charges": items(p.charges),
        "balances": p.balances,
        "reconciled": p.reconciled,
    }


@app.command()
def explain(
    ctx: typer.Context,
    break_id: BreakId,
    note: Annotated[str, typer.Option(help="What happened; kept in the audit record.")],
    evidence: Annotated[
        str, typer.Option(help="Where the proof is: a ticket, a provider case, a file hash.")
    ] = "",
    output: Output = OutputFormat.TABLE,
) -> None:
    """Explain a break, with evidence; it stays to be resolved by two operators."""
    invocation = Invocation.of(ctx)
    books = reconciliation(invocation)

    async def act() -> BreakView:
        actions = (await invocation.client()).reconcile_actions(books)
        return await actions.explain(break_id, note, evidence)

    view = invocation.run(act())
    emit(_break_shown(view, books), output)


@app.command()
def resolve(
    ctx: typer.Context,
    break_id: BreakId,
    note: Annotated[str, typer.Option(help="Why it may close; kept in the audit record.")],
    adjust_account: Annotated[
        str | None, typer.Option(help="Post an adjustment between this account and @funding.")
    ] = None,
    adjust_amount: Annotated[
        str | None,
        typer.Option(help="Signed: positive credits the account, negative debits it."),
    ] = None,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Propose to resolve a break (maker); another operator approves (`reconcile approve`)."""
    invocation = Invocation.of(ctx)
    books = reconciliation(invocation)
    found = books.find_break(break_id)
    if found.status in CLOSED_STATUSES:
        raise InvalidRequestError("BREAK", f"break {break_id} is {found.status} already")
    adjustment = _adjustment(invocation, adjust_account, adjust_amount)

    async def act() -> ResolutionView:
        actions = (await invocation.client()).operator_actions()
        return await actions.propose_resolution(break_id, note, adjustment)

    emit(_resolution_shown(invocation.run(act())), output)


@app.command()
def approve(
    ctx: typer.Context, break_id: BreakId, note: Note = "", output: Output = OutputFormat.TABLE
) -> None:
    """Approve another operator's resolution: the break closes, with its adjustment posted."""
    invocation = Invocation.of(ctx)

    async def act() -> ResolutionView:
        actions = (await invocation.client()).operator_actions()
        return await actions.approve_resolution(break_id, note)

    emit(_resolution_shown(invocation.run(act())), output)


@app.command("approve-excess")
def approve_excess(
    ctx: typer.Context, break_id: BreakId, note: Note = "", output: Output = OutputFormat.TABLE
) -> None:
    """Approve, with the treasury role, an adjustment beyond its break's difference; the
    resolution then waits for its approver (`reconcile approve`)."""
    invocation = Invocation.of(ctx)

    async def act() -> ResolutionView:
        actions = (await invocation.client()).operator_actions()
        return await actions.approve_excess(break_id, note)

    emit(_resolution_shown(invocation.run(act())), output)


def _adjustment(
    invocation: Invocation, account: str | None, amount: str | None
) -> Adjustment | None:
    if (account is None) != (amount is None):
        raise InvalidRequestError(
            "--adjust-amount", "give both --adjust-account and it, or neither"
        )
    if account is None or amount is None:
        return None
    code = invocation.ledger().account(account).currency
    magnitude = parse_money(amount.removeprefix("-"), code, field="--adjust-amount")
    sign = "-" if amount.startswith("-") else ""
    return Adjustment(account_id=account, amount=f"{sign}{magnitude.amount_text()}", currency=code)


def _listed(value: JsonValue) -> list[dict[str, JsonValue]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _accounted(statement: dict[str, JsonValue], of: int) -> list[str]:
    """One statement's lines as the worker accounted for them: read = new + known + refused,
    the earlier files that hold the known ones, each refusal with its reason. Of a file of
    several (`of`), the statement's place, account and currency too."""
    copy = f" ({statement['copy_indicator']})" if statement.get("copy_indicator") else ""
    name = f"statement {statement['statement_id']}"
    if of > 1:
        name = (
            f"statement {statement.get('position')} of {of}, {statement['statement_id']} "
            f"(account {statement.get('account')}, {statement.get('currency')})"
        )
    text = f"  {name}{copy}: {_sums(statement)}"
    holders = [
        f"{held['lines']} in file {held['file_id']} ({held['name']})"
        for held in _listed(statement.get("known_in"))
    ]
    if holders:
        text += f"; known: {', '.join(holders)}"
    if statement.get("zero_amount"):
        text += f"; {statement['zero_amount']} of 0.00, kept and marked"
    refusals = [
        f"    line {refusal['position']} refused: {refusal['reason']} "
        + (
            f"(break {refusal['break_id']})"
            if refusal.get("break_id") is not None
            else "(a break would open)"
        )
        for refusal in _listed(statement.get("refusals"))
    ]
    if statement.get("refusals_more"):
        refusals.append(f"    and {statement['refusals_more']} more refused")
    return [text, *refusals]


def _sums(counts: dict[str, JsonValue]) -> str:
    return (
        f"{counts['read']} line(s) read = {counts['new']} new + {counts['known']} already "
        f"known + {counts['refused']} refused"
    )


def _finish_dry_run(facts: dict[str, JsonValue], output: OutputFormat) -> NoReturn:
    """Say what the worker would have done, which it did not; exit 1 if breaks would be
    open."""
    head = "DRY RUN, nothing written: "
    if "sha256" in facts:
        verb = "would be imported" if facts["new"] else "is imported already: nothing to add"
        head += f"{facts['file']} ({facts['format']}, sha256 {str(facts['sha256'])[:12]}…) {verb}; "
    head += (
        f"{facts['matched']} would match, {facts['opened']} break(s) would open, "
        f"{facts['closed']} would close"
    )
    lines = [head]
    statements = _listed(facts.get("statements"))
    lines += [text for each in statements for text in _accounted(each, len(statements))]
    for found in _listed(facts.get("matches")):
        transaction = f" transaction {found['transaction']}" if found["transaction"] else ""
        lines.append(
            f"  match: {_line_text(found['line'])}{transaction} → entry {found['entry_id']} "
            f"by {found['method']}, rule {found['rule']}"
        )
    if facts.get("matches_more"):
        lines.append(f"  and {facts['matches_more']} more match(es)")
    for found in _listed(facts.get("breaks")):
        lines.append(f"  open: {found['kind']}: {found['detail']}")
    if facts.get("breaks_more"):
        lines.append(f"  and {facts['breaks_more']} more break(s)")
    for found in _listed(facts.get("closes")):
        lines.append(f"  close: break {found['break_id']} ({found['kind']}), matched")
    rules = _listed(facts.get("rules"))
    named = ", ".join(str(rule["name"]) for rule in rules)
    lines.append(f"  rules: {named} (sha256 {str(facts.get('rules_sha256', ''))[:12]}…)")
    open_after = facts.get("open_after") or 0
    lines.append(f"{open_after} break(s) would be open after it")
    emit(Shown({**facts, "open_breaks": open_after}, lines=lines), output)
    raise typer.Exit(FAILURE if open_after else 0)


def _line_text(line: JsonValue) -> str:
    if not isinstance(line, dict):
        return "?"
    which = f"line {line['line_id']}" if line.get("line_id") else "new line"
    named = ", ".join(str(r) for r in (line.get("bank_reference"), line.get("end_to_end_id")) if r)
    text = f"{which} ({line['position']} of {line['file']}: {line['direction']} {line['amount']}"
    return text + (f"; {named})" if named else ")")


def _read_file(file: Path, max_bytes: int) -> bytes:
    """The file's bytes; refused, naming the limit, before reading one over it."""
    try:
        refuse_size(file.stat().st_size, max_bytes)
        with file.open("rb") as opened:
            content = opened.read(max_bytes + 1)
    except OSError as err:
        raise InvalidRequestError("FILE", f"{file}: {err.strerror}") from None
    refuse_size(len(content), max_bytes)
    return content


def _finish(books: Reconciliation, shown: Shown, output: OutputFormat) -> None:
    """Say what was done, then exit 1 while any break is open."""
    still_open = [b for b in books.breaks() if b.status not in CLOSED_STATUSES]
    lines = [*shown.lines, f"{len(still_open)} break(s) open (`fundsaga reconcile breaks`)"]
    emit(Shown({**shown.data, "open_breaks": len(still_open)}, lines=lines), output)
    if still_open:
        raise typer.Exit(FAILURE)


def _break_json(view: BreakView, now: Any) -> dict[str, Any]:
    return {
        "break": view.break_id,
        "kind": str(view.kind),
        "status": str(view.status),
        "reference": view.reference or "",
        "ledger": "" if view.ledger_amount is None else str(view.ledger_amount),
        "statement": "" if view.statement_amount is None else str(view.statement_amount),
        "age": f"{view.age_seconds(now) // 3600}h",
        "detail": view.detail,
        "line_id": view.line_id,
        "entry_id": view.entry_id,
        "note": view.note,
        "evidence": view.evidence,
        "explained_by": view.explained_by,
        "resolved_by": view.resolved_by,
        "adjustment_entry_id": view.adjustment_entry_id,
        "opened_at": view.opened_at.isoformat(),
    }


def _break_shown(view: BreakView, books: Reconciliation) -> Shown:
    return listing([_break_json(view, books.now())], BREAK_COLUMNS)


def _resolution_shown(view: ResolutionView) -> Shown:
    data = view.model_dump(mode="json")
    maker = view.proposed_by.name if view.proposed_by else ""
    line = f"break {view.break_id}: resolution {view.status}, proposed by {maker}"
    if view.exceeds_difference:
        line += f", adjustment beyond the break's difference ({view.break_difference})"
    if view.excess_approved_by:
        line += f", excess approved by {view.excess_approved_by.name}"
    if view.approved_by:
        line += f", approved by {view.approved_by.name}"
    if view.entry_id:
        line += f", adjusting entry {view.entry_id}"
    return said(line, data)
