"""Checking a signed report offline, with public keys only: which report its signed `format`
says it is (refused when it is not the kind asked for), then its own checks, then its
signature."""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import ValidationError

from sagas.audit import Keyring
from sagas.verify._report_kinds import ReportKind, kind_of
from sagas.verify.evidence import (
    SIGNATURE_FIELD,
    EvidencePack,
    EvidenceReport,
    Signature,
    compensation_problems,
    report_signature_problem,
)
from sagas.verify.reconciliation import (
    ReconciliationPack,
    ReconciliationReport,
    reconciliation_problems,
)


@dataclass
class ReportCheck:
    kind: ReportKind | None = None
    """What the report's signed format says it is."""
    sagas: int = 0
    entries: int = 0
    records: int = 0
    statements: int = 0
    lines: int = 0
    breaks: int = 0
    signed_by: str | None = None
    problems: list[str] = field(default_factory=list)
    report: EvidenceReport | None = None
    """The compensation audit as read, when it is one."""
    reconciliation: ReconciliationReport | None = None
    """The reconciliation pack as read, when it is one."""

    @property
    def ok(self) -> bool:
        return not self.problems


def check_report(
    document: object, keyring: Keyring, expected: ReportKind | None = None
) -> ReportCheck:
    """Every problem of the report `document` (a parsed JSON object), the first one first; with
    `expected`, a report of another kind is refused before anything else is read."""
    check = ReportCheck()
    if not isinstance(document, dict) or SIGNATURE_FIELD not in document:
        check.problems.append("not an evidence report: no JSON object with a signature member")
        return check
    kind = check.kind = kind_of(document)
    if kind is None:
        named = str(document.get("format"))[:60]
        check.problems.append(f"not an evidence report: format {named!r} is none fundsaga writes")
        return check
    if expected is not None and kind is not expected:
        check.problems.append(
            f"this is a {kind.what} report, not a {expected.what} report: its signed format says so"
        )
        return check
    content = {k: v for k, v in document.items() if k != SIGNATURE_FIELD}
    try:
        pack: EvidencePack | ReconciliationPack = (
            EvidencePack.model_validate(content)
            if kind is ReportKind.COMPENSATIONS
            else ReconciliationPack.model_validate(content)
        )
        raw = document[SIGNATURE_FIELD]
        signature = None if raw is None else Signature.model_validate(raw)
    except ValidationError as err:
        error = err.errors()[0]
        where = ".".join(str(part) for part in error["loc"])
        check.problems.append(f"not a {kind.what} report: {where}: {error['msg']}")
        return check
    _check_content(check, pack, signature, keyring)
    found = report_signature_problem(document, signature, keyring)
    if found is not None:
        check.problems.append(found)
    elif signature is not None:
        check.signed_by = signature.key_id
    return check


def _check_content(
    check: ReportCheck,
    pack: EvidencePack | ReconciliationPack,
    signature: Signature | None,
    keyring: Keyring,
) -> None:
    if isinstance(pack, ReconciliationPack):
        check.reconciliation = ReconciliationReport(pack, signature)
        files = pack.files
        check.statements = sum(len(f.statements) for f in files)
        check.lines = sum(len(s.lines) for f in files for s in f.statements)
        check.breaks = len(pack.breaks)
        check.records = sum(f.import_record is not None for f in files) + sum(
            len(b.acts) for b in pack.breaks
        )
        check.problems += reconciliation_problems(pack, keyring)
    else:
        check.report = EvidenceReport(pack, signature)
        check.sagas = len(pack.sagas)
        check.entries = sum(len(saga.entries) for saga in pack.sagas)
        check.records = sum(len(saga.records) for saga in pack.sagas)
        check.problems += compensation_problems(pack, keyring)
