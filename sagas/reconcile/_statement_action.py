"""The wire contract of reconciliation actions: what a client sends the worker's statement
workflow (the file itself, inline), what the workflow hands its activities, and the outcome.

The file travels inline, base64 in the request, so the worker needs no access to the client's
disk and the bytes it reads are the bytes the operator's action names by SHA-256. Its size is
capped (FUNDSAGA_STATEMENT_MAX_BYTES, at most STATEMENT_BYTES_CEILING) under Temporal's payload
limit.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import hashlib
from enum import StrEnum

from pydantic import BaseModel, Field, JsonValue

from sagas.engine import MAX_PROOF_LENGTH, AuditKind
from sagas.foundations import STATEMENT_BYTES_CEILING, InvalidRequestError
from sagas.reconcile.formats import CsvMapping

STATEMENT_ACTION_WORKFLOW = "StatementAction"
IMPORT_STATEMENT_ACTIVITY = "reconcile.import_statement"
RECONCILE_RUN_ACTIVITY = "reconcile.run"
EXPLAIN_BREAK_ACTIVITY = "reconcile.explain_break"
DRY_RUN_ACTIVITY = "reconcile.dry_run"
"""An import (the call carries its file) or a run, rolled back: what it would do."""
STATEMENT_ACTION_PREFIX = "statement-action-"
"""Each action's workflow id, which every row it writes and its audit record carry."""
_ENCODED_CEILING = 4 * (STATEMENT_BYTES_CEILING // 3 + 1)


class StatementAct(StrEnum):
    """What a reconciliation action does."""

    IMPORT = "import"  # keep a statement file's lines, then match
    RUN = "run"  # match again
    EXPLAIN = "explain"  # explain a break, with evidence

    @property
    def audit_kind(self) -> AuditKind:
        return _AUDIT_KINDS[self]

    def binding(self, dry_run: bool = False) -> str:
        """The action an operator's token for it is bound to: a token for a dry run is no
        token for the act itself, nor the other way round."""
        return f"dry_run:{self.audit_kind.value}" if dry_run else self.audit_kind.value


_AUDIT_KINDS = {
    StatementAct.IMPORT: AuditKind.STATEMENT_IMPORTED,
    StatementAct.RUN: AuditKind.RECONCILIATION_RUN,
    StatementAct.EXPLAIN: AuditKind.BREAK_EXPLAINED,
}


class StatementUpload(BaseModel):
    """A statement file as the client read it."""

    name: str = Field(min_length=1, max_length=255)
    content_base64: str = Field(max_length=_ENCODED_CEILING, repr=False)
    sha256: str = Field(pattern="^[0-9a-f]{64}$")
    """What the client hashed; the worker refuses bytes that hash otherwise."""
    csv_mapping: dict[str, JsonValue] | None = None

    @classmethod
    def of(cls, content: bytes, name: str, csv_mapping: CsvMapping | None) -> StatementUpload:
        mapping = None if csv_mapping is None else dataclasses.asdict(csv_mapping)
        return cls(
            name=name,
            content_base64=base64.b64encode(content).decode("ascii"),
            sha256=hashlib.sha256(content).hexdigest(),
            csv_mapping=mapping,
        )

    def content(self) -> bytes:
        """The file's bytes; refused, naming FILE, when they do not hash to `sha256`."""
        try:
            data = base64.b64decode(self.content_base64, validate=True)
        except binascii.Error as err:
            raise InvalidRequestError("FILE", f"is not base64: {err}") from err
        if hashlib.sha256(data).hexdigest() != self.sha256:
            raise InvalidRequestError("FILE", "its bytes do not hash to the SHA-256 sent")
        return data

    def mapping(self) -> CsvMapping | None:
        return None if self.csv_mapping is None else CsvMapping.from_dict(self.csv_mapping)


class StatementActionRequest(BaseModel):
    """One reconciliation action, by the operator whose proof it carries."""

    act: StatementAct
    note: str = Field(default="", max_length=4000)
    proof: str = Field(default="", max_length=MAX_PROOF_LENGTH, repr=False)
    upload: StatementUpload | None = None
    """IMPORT: the file."""
    break_id: int | None = Field(default=None, ge=1)
    """EXPLAIN: the break."""
    evidence: str = Field(default="", max_length=4000)
    dry_run: bool = False
    """IMPORT, RUN: show what the act would keep, match and open, and write nothing (no row,
    no audit record)."""

    def refusal(self) -> str | None:
        """Why the request is no action the workflow takes."""
        if (self.act is StatementAct.IMPORT) != (self.upload is not None):
            return "upload: an import, and only an import, carries its file"
        if (self.act is StatementAct.EXPLAIN) != (self.break_id is not None):
            return "break_id: an explanation, and only one, names its break"
        if self.act is StatementAct.EXPLAIN and not self.note.strip():
            return "--note: an explanation needs a note"
        if self.dry_run and self.act is StatementAct.EXPLAIN:
            return "dry_run: only an import or a run has a dry run"
        return None


class StatementCall(BaseModel):
    """What the worker's activity does for a verified operator; `action_id` stamps each row."""

    action_id: str = Field(min_length=1, max_length=120)
    operator: str
    upload: StatementUpload | None = None
    break_id: int | None = None
    note: str = ""
    evidence: str = ""


class StatementOutcome(BaseModel):
    """What the action did (its audit record's facts), or why the worker refused it."""

    facts: dict[str, JsonValue] = Field(default_factory=dict)
    refused_type: str | None = None
    """The refusal's error class name (InvalidRequestError, ...); None when done."""
    refused: str | None = None
