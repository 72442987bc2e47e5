"""The evidence pack's header: what it covers, where its figures come from, who made it, and
how the audit chain and the ledger journal stood when it was made."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, JsonValue


class Evidence(BaseModel):
    """Every part of the pack: frozen, and a field nobody wrote is refused when read back."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class SignedRecord(Evidence):
    """An audit record as it was hashed and signed: re-hashed by anyone, with no payload key
    (a sealed payload is hashed as its ciphertext)."""

    sequence: int
    kind: str
    key_id: str
    hash: str
    signature: str
    """Ed25519 (base64) by `key_id` over the ASCII of `hash`."""
    signed: dict[str, JsonValue]
    """Every field the hash covers, as stored: its SHA-256 over canonical JSON is `hash`."""


class Anchor(Evidence):
    """The newest anchor of a chain: a record of the anchor store naming a place in the chain."""

    sequence: int
    """The place in the anchored chain."""
    hash: str
    """The chain's hash at that place."""
    record: SignedRecord
    """The anchor record, whose payload names `sequence` and `hash`."""


class AuditChain(Evidence):
    ok: bool
    records: int
    head_sequence: int
    head_hash: str
    first_bad_sequence: int | None
    latest_anchor: Anchor | None
    findings: list[str]


class Journal(Evidence):
    ok: bool
    sealed_head_sequence: int
    sealed_head_hash: str
    unsealed: int
    """Entries written since the sealer last ran."""
    latest_anchor: Anchor | None
    key_ids: list[str]
    """Every key id that signed a journal entry."""
    temporal_compared: bool
    """Whether every entry was checked against its witness in Temporal."""
    findings: list[str]


class Chains(Evidence):
    audit: AuditChain
    journal: Journal


class Sources(Evidence):
    """Where the figures were read; no password."""

    database: str
    audit_store: str
    anchor_store: str
    temporal_address: str
    temporal_namespace: str


class MadeBy(Evidence):
    os_user: str
    host: str
    operator: str | None
    """The name given with `--by`."""


class Scope(Evidence):
    since: str | None
    """ISO 8601; None: from the first record."""
    until: str | None
    """ISO 8601; None: up to `made_at`."""
    statuses: list[str]
    """The saga statuses audited."""
    task_queue: str
    """This deployment's task queue."""
    task_queues_seen: list[str]
    """Every task queue the audited sagas' runs were found on."""
    sources: Sources
    made_at: str
    """By the audit store's clock."""
    made_by: MadeBy
    fundsaga_version: str
