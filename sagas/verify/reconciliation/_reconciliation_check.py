"""Checking a reconciliation pack offline, with public keys only: every signed record it carries
hashed again and its signature checked, each act and count read again from its record, each
statement's lines counted, each age and proof of cash recomputed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from datetime import datetime

from pydantic import JsonValue

from sagas.audit import Keyring
from sagas.codec import SEALED_FIELD
from sagas.engine import AuditKind
from sagas.foundations import InvalidRequestError
from sagas.verify.evidence import SignedRecord, anchor_problems, record_problems
from sagas.verify.reconciliation._reconciliation_figures import (
    account_proof,
    age_seconds,
    counts_of,
)
from sagas.verify.reconciliation._reconciliation_model import (
    BreakEvidence,
    FileEvidence,
    ReconciliationPack,
    StatementEvidence,
)
from sagas.verify.reconciliation._reconciliation_proof_check import proof_problems
from sagas.verify.reconciliation._reconciliation_records import (
    ACTS,
    act_facts,
    identity_of,
    stated_counts,
)


def reconciliation_problems(pack: ReconciliationPack, keyring: Keyring) -> Iterator[str]:
    """Every problem of the pack but its signature's, the first one first."""
    if pack.verdict.ok == bool(pack.findings):
        yield "the verdict does not follow from the findings listed"
    for file in pack.files:
        yield from _file_problems(file, keyring)
    yield from _identity_problems(pack)
    for found in pack.breaks:
        yield from _break_problems(found, pack.scope.as_of, keyring)
    try:
        yield from proof_problems(pack)
        for proof in pack.proofs:
            if account_proof(proof.account, proof.currency, proof.statements) != proof:
                yield (
                    f"the proof of account {proof.account} ({proof.currency}) is not its "
                    "statements' proofs: changed"
                )
    except (InvalidRequestError, ValueError) as err:
        yield f"a proof's figures cannot be read: {err}"
    records = {r.sequence: r.hash for r in _records(pack)}
    for name, anchor, listed in (
        ("audit chain", pack.chains.audit.latest_anchor, records),
        ("ledger journal", pack.chains.journal.latest_anchor, {}),
    ):
        if anchor is not None:
            yield from anchor_problems(name, anchor, listed, keyring)


def _records(pack: ReconciliationPack) -> Iterator[SignedRecord]:
    for file in pack.files:
        if file.import_record is not None:
            yield file.import_record
    for found in pack.breaks:
        for act in found.acts:
            yield act.record


def _file_problems(file: FileEvidence, keyring: Keyring) -> Iterator[str]:
    where = f"file {file.file_id} ({file.name})"
    record = file.import_record
    payload: Mapping[str, JsonValue] = {}
    if record is not None:
        at = f"{where}: its import's record {record.sequence}"
        yield from record_problems(at, record, keyring)
        if record.signed.get("saga_id") != file.action_id:
            yield f"{at}: records another action than the file names"
        payload = _payload(record)
        if payload and payload.get("sha256") not in (None, file.sha256):
            yield f"{at}: imported another file: its SHA-256 differs"
        if payload and identity_of(payload) != file.verified_importer:
            yield f"{at}: names another importer than the pack shows: changed"
    places = [statement.position for statement in file.statements]
    if places != sorted(set(places)) or places[:1] < [1]:
        yield f"{where}: its statements are not listed once each at their places, in order"
    for statement in file.statements:
        at = f"statement {statement.statement_id}{_place(statement.position)} of {where}"
        yield from _statement_problems(at, statement)
        stated = stated_counts(payload, statement.statement_id, statement.position)
        if payload and stated != statement.stated_counts:
            yield f"{at}: its counts are not its record's"


def _place(position: int) -> str:
    return "" if position == 1 else f" (its statement {position})"


def _statement_problems(at: str, statement: StatementEvidence) -> Iterator[str]:
    counts = statement.counts
    if counts_of(counts.read, statement.lines) != counts:
        yield f"{at}: its counts are not those of its lines listed: changed"
    places = [line.position for line in statement.lines]
    if places != list(range(1, len(places) + 1)):
        yield f"{at}: its lines are not listed once each at their places 1 to {len(places)}"
    for line in statement.lines:
        kept = line.status == "new"
        if line.status not in {"new", "known", "refused"}:
            yield f"{at}: line {line.position} is {line.status!r}, not new, known or refused"
        elif kept != (line.line_id is not None and line.amount is not None):
            yield f"{at}: line {line.position} is {line.status} but shows otherwise"


def _identity_problems(pack: ReconciliationPack) -> Iterator[str]:
    """A line or an entry listed twice, or a break named that the register lacks."""
    lines = [line for f in pack.files for s in f.statements for line in s.lines]
    kept = Counter(line.line_id for line in lines if line.line_id is not None)
    entries = Counter(
        match.entry_id
        for line in lines
        for match in (line.match, *(t.match for t in line.transactions))
        if match is not None
    )
    for what, counted in (("statement line", kept), ("journal entry matched", entries)):
        for twice in sorted(n for n, times in counted.items() if times > 1):
            yield f"{what} {twice} is listed {counted[twice]} times"
    named = {
        n
        for line in lines
        for n in (*line.breaks, *(b for t in line.transactions for b in t.breaks))
    }
    named |= {n for f in pack.files for s in f.statements for n in s.breaks}
    registered = Counter(found.break_id for found in pack.breaks)
    for missing in sorted(named - set(registered)):
        yield f"break {missing} is named by a line or statement but not in the register"
    for twice in sorted(n for n, times in registered.items() if times > 1):
        yield f"break {twice} is in the register {registered[twice]} times"


def _break_problems(found: BreakEvidence, as_of: str, keyring: Keyring) -> Iterator[str]:
    where = f"break {found.break_id}"
    if age_seconds(found.opened_at, found.closed_at, as_of) != found.age_seconds:
        yield f"{where}: its age is not from its opening to its closing (or the pack's time)"
    proposer = None
    for act in found.acts:
        record = act.record
        at = f"{where}: its {act.act} record {record.sequence}"
        yield from record_problems(at, record, keyring)
        if ACTS.get(record.kind) != act.act:
            yield f"{at}: records {record.kind}, not this act"
        if not _same_time(record.signed.get("recorded_at"), act.at):
            yield f"{at}: its time is not its record's: changed"
        payload = _payload(record)
        if not payload:
            continue
        if payload.get("break_id") != found.break_id:
            yield f"{at}: is about another break"
        facts = act_facts(record.kind, payload)
        if (facts.operator, facts.note, facts.evidence) != (act.operator, act.note, act.evidence):
            yield f"{at}: its operator, note or evidence are not its record's: changed"
        if act.act == "proposed":
            proposer = facts.operator
        named = payload.get("proposed_by")
        if record.kind != AuditKind.BREAK_RESOLVED or not isinstance(named, dict):
            continue
        if proposer is not None and identity_of(named) != proposer:
            yield f"{at}: names another proposer than the proposal's record"


def _same_time(recorded: JsonValue, shown: str) -> bool:
    try:
        return datetime.fromisoformat(str(recorded)) == datetime.fromisoformat(shown)
    except ValueError:
        return False


def _payload(record: SignedRecord) -> Mapping[str, JsonValue]:
    """The record's signed payload; empty when it is sealed (its facts cannot be read)."""
    payload = record.signed.get("payload")
    if not isinstance(payload, dict) or SEALED_FIELD in payload:
        return {}
    return payload
