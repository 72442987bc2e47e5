"""`fundsaga audit ...`: verify the WORM trail, export its head, run the compensation audit."""

from __future__ import annotations

import argparse
from datetime import datetime
from pathlib import Path
from typing import Any

from activities.audit import anchor_journal
from sagas.app._audit_keys import anchor_head, open_audit, verifier_keys, writer_keys
from sagas.app._audit_verify import verify_trail
from sagas.app._audit_witness import Witnessed, witness_findings, witnessed_records
from sagas.app._cli_ledger import ledger_verdict
from sagas.app._client import connect_temporal
from sagas.app._compensation_audit import run_compensation_audit
from sagas.app._report_formats import FORMATS
from sagas.audit import AnchoredAuditStore, Checkpoint, SigningKey, take_checkpoint
from sagas.engine import SAGA_STATUS, SAGA_TYPE, SagaStatus
from sagas.foundations import InvalidRequestError, Settings
from sagas.ledger import Ledger


def add_parser(commands: Any) -> None:
    audit = commands.add_parser("audit", help="the WORM audit trail and compensation audits")
    sub = audit.add_subparsers(dest="action", required=True)
    keygen = sub.add_parser("keygen", help="make an Ed25519 signing key for the worker")
    keygen.add_argument(
        "--out", type=Path, help="private key file (default FUNDSAGA_AUDIT_SIGNING_KEY)"
    )
    sub.add_parser(
        "anchor",
        help="anchor the audit chain and the ledger journal at their heads now (signing key)",
    )
    verify = sub.add_parser("verify", help="chain, signatures and anchors; exit 1 on any finding")
    verify.add_argument("--checkpoint", type=Path, help="a file written by `audit checkpoint`")
    checkpoint = sub.add_parser("checkpoint", help="export the chain head, to keep elsewhere")
    checkpoint.add_argument("-o", "--output-file", type=Path, help="default: stdout")
    report = sub.add_parser("compensations", help="prove every compensation in the ledger")
    report.add_argument("--since", type=_timestamp, help="ISO 8601, e.g. 2026-11-01T00:00Z")
    report.add_argument("--until", type=_timestamp)
    report.add_argument("--status", choices=["COMPENSATED", "NEEDS_ATTENTION", "RESOLVED"])
    report.add_argument("--format", choices=sorted(FORMATS), default="table")
    report.add_argument("-o", "--output-file", type=Path, help="default: stdout")


def _timestamp(text: str) -> datetime:
    try:
        parsed = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an ISO 8601 time") from None
    if parsed.tzinfo is None:
        raise argparse.ArgumentTypeError(f"{text!r} needs a time zone, e.g. Z")
    return parsed


def _emit(text: str, target: Path | None) -> None:
    if target is None:
        print(text, end="")
    else:
        target.write_text(text, encoding="utf-8")


async def run(args: argparse.Namespace, settings: Settings) -> int:
    if args.action == "keygen":
        return _keygen(args.out or Path(settings.audit_signing_key))
    if args.action == "anchor":
        return _anchor(open_audit(settings, writer_keys(settings)), settings)
    store = open_audit(settings, verifier_keys(settings))
    try:
        if args.action == "verify":
            return await _verify(store, args.checkpoint, settings)
        if args.action == "checkpoint":
            _emit(take_checkpoint(store).to_json() + "\n", args.output_file)
            return 0
        return await _compensations(args, settings, store)
    finally:
        store.close_connections()


def _keygen(path: Path) -> int:
    try:
        key = SigningKey.generate()
        public = key.write(path)
    except FileExistsError:
        raise InvalidRequestError("--out", f"{path} exists: a key is never overwritten") from None
    print(f"signing key {key.key_id}: private {path} (owner only), public {public}")
    return 0


def _anchor(store: AnchoredAuditStore, settings: Settings) -> int:
    ledger = Ledger.from_url(settings.database_url)
    try:
        journal = anchor_journal(ledger, store.anchors)
        anchored = anchor_head(store)
    finally:
        ledger.close_connections()
        store.close_connections()
    if anchored is None:
        print("the audit chain is empty: nothing to anchor")
    else:
        print(f"audit chain anchored at record {anchored.sequence} ({anchored.hash})")
    if journal is None:
        print("the ledger journal is empty: nothing to anchor")
    else:
        print(f"ledger journal anchored at entry {journal.sequence} ({journal.hash})")
    return 0


async def _verify(
    store: AnchoredAuditStore, checkpoint_file: Path | None, settings: Settings
) -> int:
    checkpoint = None
    if checkpoint_file is not None:
        try:
            checkpoint = Checkpoint.from_json(checkpoint_file.read_text(encoding="utf-8"))
        except (OSError, ValueError) as err:
            raise InvalidRequestError("--checkpoint", str(err)) from err
    verdict = verify_trail(store, checkpoint)
    witnessed = await _witnessed(settings)
    if witnessed is None:
        print(
            f"note: Temporal at {settings.temporal_address} not reachable: histories not compared"
        )
    else:
        for finding in witness_findings(store.records(), witnessed):
            verdict.fail(finding)
    if verdict.ok:
        anchored = (
            f", anchored at record {verdict.anchored_at}"
            if verdict.anchored_at is not None
            else ", no anchor yet"
        )
        print(f"audit chain intact: {verdict.records} records, every signature valid{anchored}")
        return 0
    where = f" at sequence {verdict.first_bad_sequence}" if verdict.first_bad_sequence else ""
    print(f"audit chain BROKEN{where}: {verdict.findings[0]}")
    for finding in verdict.findings[1:]:
        print(f"  also: {finding}")
    return 1


async def _witnessed(settings: Settings) -> list[Witnessed] | None:
    try:
        client = await connect_temporal(settings)
    except RuntimeError:
        return None
    return await witnessed_records(client, settings.task_queue)


async def _temporal_statuses(settings: Settings) -> dict[str, str] | None:
    try:
        client = await connect_temporal(settings)
    except RuntimeError:
        return None
    statuses: dict[str, str] = {}
    query = f"{SAGA_TYPE.name} IS NOT NULL AND TaskQueue = '{settings.task_queue}'"
    async for execution in client.list_workflows(query):
        statuses[execution.id] = execution.typed_search_attributes.get(SAGA_STATUS) or ""
    return statuses


async def _compensations(
    args: argparse.Namespace, settings: Settings, store: AnchoredAuditStore
) -> int:
    ledger = Ledger.from_url(settings.database_url)
    trail = verify_trail(store, None)
    witnessed = await _witnessed(settings)
    try:
        report = run_compensation_audit(
            ledger,
            store,
            await _temporal_statuses(settings),
            since=args.since,
            until=args.until,
            status=SagaStatus(args.status) if args.status else None,
        )
    finally:
        ledger.close_connections()
    first = [f"audit trail: {finding}" for finding in trail.findings]
    first += [f"ledger: {finding}" for finding in ledger_verdict(settings).findings]
    if witnessed is not None:
        first += witness_findings(store.records(), witnessed)
    report.findings[:0] = first
    _emit(FORMATS[args.format](report), args.output_file)
    return 0 if report.ok else 1
