"""`fundsaga audit ...`: keys, anchors, verification and the export of the WORM trail's head.
The compensation audit is in `_cli_audit_report`."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from activities.audit import anchor_journal
from sagas.audit import (
    Checkpoint,
    SigningKey,
    Witnessed,
    take_checkpoint,
    witness_findings,
    witnessed_records,
)
from sagas.cli._errors import FAILURE
from sagas.cli._invocation import Invocation
from sagas.cli._output import Output, OutputFormat, Shown, emit, said
from sagas.client import TemporalUnreachableError
from sagas.foundations import InvalidRequestError
from sagas.verify import TrailVerdict, anchor_head, verifier_keys, verify_trail, writer_keys

app = typer.Typer(
    name="audit",
    help="The WORM audit trail: keys, anchors, verification, compensation audits.",
    no_args_is_help=True,
)


@app.command()
def keygen(
    ctx: typer.Context,
    out: Annotated[
        Path | None,
        typer.Option(help="Private key file.", show_default="FUNDSAGA_AUDIT_SIGNING_KEY"),
    ] = None,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Make an Ed25519 signing key for the worker (and its .pub); never overwrites one."""
    path = out or Path(Invocation.of(ctx).settings.audit_signing_key)
    key = SigningKey.generate()
    try:
        public = key.write(path)
    except FileExistsError:
        raise InvalidRequestError("--out", f"{path} exists: a key is never overwritten") from None
    line = f"signing key {key.key_id}: private {path} (owner only), public {public}"
    facts = {"key_id": key.key_id, "private_key": path, "public_key": public}
    emit(said(line, facts), output)


@app.command()
def anchor(ctx: typer.Context, output: Output = OutputFormat.TABLE) -> None:
    """Anchor the audit chain and the ledger journal at their heads now (needs the signing key)."""
    invocation = Invocation.of(ctx)
    store = invocation.audit(writer_keys(invocation.settings))
    journal = anchor_journal(invocation.ledger(), store.anchors)
    anchored = anchor_head(store)
    lines = [
        "the audit chain is empty: nothing to anchor"
        if anchored is None
        else f"audit chain anchored at record {anchored.sequence} ({anchored.hash})",
        "the ledger journal is empty: nothing to anchor"
        if journal is None
        else f"ledger journal anchored at entry {journal.sequence} ({journal.hash})",
    ]
    facts = {
        "anchored": None if anchored is None else _checkpoint_json(anchored),
        "journal_anchored": None if journal is None else _checkpoint_json(journal),
    }
    emit(Shown(facts, lines=lines), output)


@app.command()
def verify(
    ctx: typer.Context,
    checkpoint: Annotated[
        Path | None, typer.Option(help="A file written by `audit checkpoint --file`.")
    ] = None,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Chain, signatures, anchors and Temporal's histories; exit 1 on any finding."""
    invocation = Invocation.of(ctx).scanning()
    store = invocation.audit(verifier_keys(invocation.settings))
    verdict = verify_trail(store, _read_checkpoint(checkpoint))
    witnessed = invocation.run(witnessed_or_none(invocation))
    if witnessed is not None:
        for finding in witness_findings(store.records(), witnessed):
            verdict.fail(finding)
    emit(_verdict_shown(verdict, invocation.settings.temporal_address, witnessed), output)
    if not verdict.ok:
        raise typer.Exit(FAILURE)


@app.command()
def checkpoint(
    ctx: typer.Context,
    file: Annotated[
        Path | None, typer.Option(help="Write the checkpoint there, to keep elsewhere.")
    ] = None,
    output: Output = OutputFormat.TABLE,
) -> None:
    """Export the chain head, to keep where the store's writers cannot reach."""
    invocation = Invocation.of(ctx)
    head = take_checkpoint(invocation.audit(verifier_keys(invocation.settings)))
    facts = _checkpoint_json(head)
    line = f"audit chain head: record {head.sequence} ({head.hash}) at {facts['taken_at']}"
    if file is not None:
        file.write_text(head.to_json(), encoding="utf-8")
        facts = {**facts, "file": str(file)}
        line = f"{line}, written to {file}"
    emit(said(line, facts), output)


async def witnessed_or_none(invocation: Invocation) -> list[Witnessed] | None:
    """The records Temporal's histories saw written; None when Temporal does not answer."""
    try:
        temporal = await invocation.temporal()
    except TemporalUnreachableError:
        return None
    return await witnessed_records(temporal, invocation.settings.task_queue)


def _read_checkpoint(path: Path | None) -> Checkpoint | None:
    if path is None:
        return None
    try:
        return Checkpoint.from_json(path.read_text(encoding="utf-8"))
    except InvalidRequestError as err:
        raise InvalidRequestError("--checkpoint", f"{path}: {err.problem}") from err
    except (OSError, UnicodeDecodeError) as err:
        raise InvalidRequestError("--checkpoint", str(err)) from err


def _checkpoint_json(checkpoint: Checkpoint) -> dict[str, object]:
    fields: dict[str, object] = json.loads(checkpoint.to_json())
    return fields


def _verdict_shown(verdict: TrailVerdict, address: str, witnessed: list[Witnessed] | None) -> Shown:
    data = {
        "ok": verdict.ok,
        "records": verdict.records,
        "first_bad_sequence": verdict.first_bad_sequence,
        "anchored_at": verdict.anchored_at,
        "temporal_compared": witnessed is not None,
        "findings": verdict.findings,
    }
    lines = (
        []
        if witnessed is not None
        else [f"note: Temporal at {address} not reachable: histories not compared"]
    )
    if verdict.ok:
        anchored = (
            f", anchored at record {verdict.anchored_at}"
            if verdict.anchored_at is not None
            else ", no anchor yet"
        )
        lines.append(
            f"audit chain intact: {verdict.records} records, every signature valid{anchored}"
        )
    else:
        where = f" at sequence {verdict.first_bad_sequence}" if verdict.first_bad_sequence else ""
        first, *more = verdict.findings
        lines += [f"audit chain BROKEN{where}: {first}", *(f"  also: {m}" for m in more)]
    return Shown(data, lines=lines)
