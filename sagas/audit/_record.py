"""An audit record, its hash (sha256 over the canonical JSON of every other field but the
signature) and its Ed25519 signature over that hash."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, AwareDatetime, BaseModel, JsonValue, ValidationError

from sagas.audit._keys import Keyring, SigningKey
from sagas.foundations import InvalidRequestError, canonical_json, not_before, sha256_hex

GENESIS_HASH = "0" * 64
MAX_TEXT_LENGTH = 255


def _to_utc(value: datetime) -> datetime:
    return value.astimezone(UTC)


UtcTimestamp = Annotated[AwareDatetime, AfterValidator(_to_utc)]


class AuditRecord(BaseModel, frozen=True):
    """One entry of the append-only audit trail; never changed once written."""

    sequence: int
    """1, 2, 3, ... with no gaps."""
    recorded_at: UtcTimestamp
    """When the record was appended (UTC), by the store's clock (a table store's is its
    database server's); never before the record it follows."""
    kind: str
    """What happened, e.g. "terminal" or "operator_resolve"."""
    saga_id: str
    """The saga the record is about."""
    dedupe_key: str
    """Unique: appending again with this key returns this record."""
    payload: dict[str, JsonValue]
    """The facts recorded."""
    prev_hash: str
    """The hash of the record before, GENESIS_HASH for sequence 1."""
    key_id: str
    """The signing key's id (see sagas.audit.Keyring)."""
    hash: str
    """sha256 (hex) of the canonical JSON of all the fields above."""
    signature: str
    """Ed25519 signature (base64) of `hash` by the key `key_id`."""


def format_timestamp(value: datetime) -> str:
    return value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def hashed_fields(record: AuditRecord) -> dict[str, JsonValue]:
    """Every field except `hash`, as the canonical JSON spells them."""
    return {
        "sequence": record.sequence,
        "recorded_at": format_timestamp(record.recorded_at),
        "kind": record.kind,
        "saga_id": record.saga_id,
        "dedupe_key": record.dedupe_key,
        "payload": record.payload,
        "prev_hash": record.prev_hash,
        "key_id": record.key_id,
    }


def compute_hash(record: AuditRecord) -> str:
    return sha256_hex(canonical_json(hashed_fields(record)))


def seal(
    *,
    sequence: int,
    recorded_at: datetime,
    kind: str,
    saga_id: str,
    dedupe_key: str,
    payload: dict[str, JsonValue],
    prev_hash: str,
    signer: SigningKey,
) -> AuditRecord:
    """A record with its hash computed and signed."""
    unsealed = AuditRecord(
        sequence=sequence,
        recorded_at=recorded_at,
        kind=kind,
        saga_id=saga_id,
        dedupe_key=dedupe_key,
        payload=payload,
        prev_hash=prev_hash,
        key_id=signer.key_id,
        hash="",
        signature="",
    )
    hashed = compute_hash(unsealed)
    return unsealed.model_copy(update={"hash": hashed, "signature": signer.sign(hashed.encode())})


def signature_problem(record: AuditRecord, keyring: Keyring) -> str | None:
    """Why the record's signature does not prove its hash, or None when it does."""
    return keyring.problem(record.key_id, record.signature, record.hash.encode())


def next_record(
    head: AuditRecord | None,
    *,
    now: datetime,
    kind: str,
    saga_id: str,
    dedupe_key: str,
    payload: dict[str, JsonValue],
    signer: SigningKey,
) -> AuditRecord:
    """The record that follows `head` (or starts the chain), signed and stamped `now`, or at
    the head's time when `now` reads earlier."""
    return seal(
        signer=signer,
        sequence=head.sequence + 1 if head else 1,
        recorded_at=not_before(now, head.recorded_at if head else None),
        kind=kind,
        saga_id=saga_id,
        dedupe_key=dedupe_key,
        payload=payload,
        prev_hash=head.hash if head else GENESIS_HASH,
    )


def check_append(*, kind: str, saga_id: str, dedupe_key: str, payload: object) -> None:
    """Refuse what cannot be stored or hashed, before anything is written."""
    for field, value in (("kind", kind), ("saga_id", saga_id), ("dedupe_key", dedupe_key)):
        if not value or len(value) > MAX_TEXT_LENGTH or "\x00" in value:
            raise InvalidRequestError(field, f"must be 1 to {MAX_TEXT_LENGTH} characters, no NUL")
    if not isinstance(payload, dict):
        raise InvalidRequestError("payload", "must be a JSON object")
    try:
        canonical_json(payload).encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise InvalidRequestError("payload", f"not storable as canonical JSON: {exc}") from exc


def record_line(record: AuditRecord) -> bytes:
    """The record, hash and signature included, as one canonical JSON line."""
    fields = {**hashed_fields(record), "hash": record.hash, "signature": record.signature}
    return (canonical_json(fields) + "\n").encode("utf-8")


def parse_record_line(data: bytes) -> AuditRecord:
    """The record in `data`; ValueError unless `data` is exactly its canonical line."""
    record = AuditRecord.model_validate_json(data)
    if record_line(record) != data:
        raise ValueError("not in canonical form")
    return record


def describe_invalid(exc: ValueError) -> str:
    """One line saying why a stored record could not be read."""
    if isinstance(exc, ValidationError):
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "record"
        return f"{where}: {error['msg']}"
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
