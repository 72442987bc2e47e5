"""`fundsaga audit verify-report FILE`: an evidence report checked offline, with public keys
only: no database, no Temporal, no payload key."""

from __future__ import annotations

from importlib.metadata import version
from pathlib import Path
from typing import Annotated

import typer

from sagas.audit import Keyring
from sagas.cli._errors import FAILURE
from sagas.cli._evidence_html import embedded_json, evidence_html
from sagas.cli._invocation import Invocation
from sagas.cli._output import Output, OutputFormat, Shown, emit
from sagas.cli._reconciliation_html import reconciliation_html
from sagas.foundations import InvalidRequestError, loads_one_reading
from sagas.verify import ReportCheck, ReportKind, check_report, verifier_keys


def verify_report(
    ctx: typer.Context,
    report: Annotated[
        Path,
        typer.Argument(
            help="A report of `audit compensations` or `reconcile report`, as json or html."
        ),
    ],
    kind: Annotated[
        ReportKind | None,
        typer.Option(
            "--kind",
            help="Accept only this kind of report (its signed format says which it is).",
            case_sensitive=False,
            show_default="either",
        ),
    ] = None,
    public_key: Annotated[
        list[Path] | None,
        typer.Option(
            "--public-key",
            help="Trust this Ed25519 public key (PEM); repeat for each key to trust.",
            show_default="FUNDSAGA_AUDIT_PUBLIC_KEYS",
        ),
    ] = None,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Check a report's signature, re-hash its records and entries, recompute its figures.

    Offline, with public keys only; exit 1 naming the first problem. A compensation audit is
    not a reconciliation pack: with --kind, a report of the other kind is refused.
    """
    keyring = _keyring(ctx, public_key)
    try:
        text = report.read_text(encoding="utf-8")
    except OSError as err:
        raise InvalidRequestError("REPORT", f"{report}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidRequestError("REPORT", f"{report}: not UTF-8 text") from None
    check, notes = _checked(text, keyring, kind)
    emit(_shown(check, report, notes), output)
    if not check.ok:
        raise typer.Exit(FAILURE)


def _keyring(ctx: typer.Context, paths: list[Path] | None) -> Keyring:
    if not paths:
        return verifier_keys(Invocation.of(ctx).settings).keyring
    try:
        return Keyring.read(paths)
    except InvalidRequestError as err:
        raise InvalidRequestError("--public-key", err.problem) from None


def _checked(text: str, keyring: Keyring, kind: ReportKind | None) -> tuple[ReportCheck, list[str]]:
    page = text.lstrip().startswith("<")
    try:
        document = loads_one_reading(embedded_json(text) if page else text)
    except (ValueError, InvalidRequestError) as err:
        problem = f"not an evidence report: {str(err).splitlines()[0]}"
        return ReportCheck(problems=[problem]), []
    check = check_report(document, keyring, kind)
    rendered = _page(check)
    if not page or rendered is None:
        return check, []
    page_of, made_by = rendered
    if made_by != version("fundsaga"):
        return check, [f"note: the page was made by fundsaga {made_by}: only its JSON is checked"]
    if page_of != text:
        check.problems.append(
            "the page shows other than its signed JSON renders to: its HTML was changed"
        )
    return check, []


def _page(check: ReportCheck) -> tuple[str, str] | None:
    """The page the checked report renders to, and the version that made it; None when the
    report could not be read."""
    if check.reconciliation is not None:
        pack = check.reconciliation.pack
        return reconciliation_html(check.reconciliation), pack.scope.fundsaga_version
    if check.report is not None:
        return evidence_html(check.report), check.report.pack.scope.fundsaga_version
    return None


def _shown(check: ReportCheck, report: Path, notes: list[str]) -> Shown:
    data = {
        "ok": check.ok,
        "file": str(report),
        "kind": None if check.kind is None else check.kind.value,
        "sagas": check.sagas,
        "entries": check.entries,
        "statements": check.statements,
        "lines": check.lines,
        "breaks": check.breaks,
        "records": check.records,
        "signed_by": check.signed_by,
        "problems": check.problems,
    }
    if check.ok:
        line = (
            f"reconciliation pack verified: {check.statements} statements, {check.lines} lines, "
            f"{check.breaks} breaks"
            if check.kind is ReportKind.RECONCILIATION
            else f"report verified: {check.sagas} sagas, {check.entries} entries"
        )
        line += f", {check.records} records, signed by {check.signed_by}"
        return Shown(data, lines=[*notes, line])
    first, *more = check.problems
    lines = [*notes, f"report NOT verified: {first}", *(f"  also: {m}" for m in more)]
    return Shown(data, lines=lines)
