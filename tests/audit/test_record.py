from __future__ import annotations

import hashlib
from datetime import UTC, datetime, timedelta, timezone

import pytest
from pydantic import ValidationError

from sagas import InvalidRequestError
from sagas.audit import GENESIS_HASH, AuditKeys, AuditRecord, Checkpoint, SigningKey
from sagas.audit._record import (
    check_append,
    parse_record_line,
    record_line,
    seal,
    signature_problem,
)
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER

AT = datetime(2026, 11, 21, 12, 0, 0, 1, tzinfo=UTC)


def sealed(**changes: object) -> AuditRecord:
    fields: dict[str, object] = {
        "sequence": 1,
        "recorded_at": AT,
        "kind": "terminal",
        "saga_id": "s",
        "dedupe_key": "k",
        "payload": {"é": "ü", "a": [1, 2.5, None, True]},
        "prev_hash": GENESIS_HASH,
        **changes,
    }
    return seal(**fields, signer=TEST_SIGNER)  # type: ignore[arg-type]


def test_the_hash_is_sha256_of_the_canonical_json_of_the_other_fields() -> None:
    canonical = (
        '{"dedupe_key":"k","key_id":"' + TEST_SIGNER.key_id + '","kind":"terminal",'
        '"payload":{"a":[1,2.5,null,true],"é":"ü"},'
        f'"prev_hash":"{GENESIS_HASH}","recorded_at":"2026-11-21T12:00:00.000001Z",'
        '"saga_id":"s","sequence":1}'
    )

    assert sealed().hash == hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def test_the_signature_is_the_signing_key_s_over_the_hash() -> None:
    record = sealed()
    stranger = AuditKeys.for_writer(SigningKey.generate()).keyring

    assert signature_problem(record, TEST_KEYS.keyring) is None
    assert "not a trusted key" in (signature_problem(record, stranger) or "")
    resigned = record.model_copy(update={"signature": sealed(kind="other").signature})
    assert "did not make" in (signature_problem(resigned, TEST_KEYS.keyring) or "")


def test_a_record_file_line_is_the_canonical_json_with_the_hash() -> None:
    record = sealed()
    line = record_line(record)

    assert line.endswith(b"}\n")
    assert line.count(b"\n") == 1
    assert f'"hash":"{record.hash}"'.encode() in line
    assert "é".encode() in line
    assert parse_record_line(line) == record


@pytest.mark.parametrize(
    "line",
    [
        b'{"sequence": 1}\n',
        b"not json\n",
        b"\xff\n",
    ],
)
def test_only_canonical_lines_parse(line: bytes) -> None:
    with pytest.raises(ValueError):  # noqa: PT011
        parse_record_line(line)


def test_a_line_with_extra_whitespace_is_refused() -> None:
    line = record_line(sealed()).replace(b'":', b'": ', 1)

    with pytest.raises(ValueError, match="canonical"):
        parse_record_line(line)


def test_timestamps_are_stored_in_utc() -> None:
    record = sealed(recorded_at=AT.astimezone(timezone(timedelta(hours=2))))

    assert record.recorded_at.tzinfo == UTC
    assert record == sealed()


def test_naive_timestamps_are_refused() -> None:
    with pytest.raises(ValidationError):
        sealed(recorded_at=AT.replace(tzinfo=None))


def test_records_are_frozen() -> None:
    record = sealed()

    with pytest.raises(ValidationError):
        record.kind = "forged"  # type: ignore[misc]


@pytest.mark.parametrize(
    ("field", "changes"),
    [
        ("kind", {"kind": ""}),
        ("saga_id", {"saga_id": "x" * 256}),
        ("dedupe_key", {"dedupe_key": "a\x00b"}),
        ("payload", {"payload": {"x": float("nan")}}),
        ("payload", {"payload": {"x": "\ud800"}}),
        ("payload", {"payload": ["not", "an", "object"]}),
    ],
)
def test_what_cannot_be_stored_is_refused(field: str, changes: dict[str, object]) -> None:
    fields: dict[str, object] = {"kind": "k", "saga_id": "s", "dedupe_key": "d", "payload": {}}

    with pytest.raises(InvalidRequestError) as raised:
        check_append(**{**fields, **changes})  # type: ignore[arg-type]

    assert raised.value.field == field


def test_a_checkpoint_round_trips_through_json() -> None:
    checkpoint = Checkpoint(sequence=7, hash="ab" * 32, taken_at=AT)

    assert Checkpoint.from_json(checkpoint.to_json()) == checkpoint


@pytest.mark.parametrize(
    "text",
    [
        "",
        "[]",
        '{"sequence": 1, "hash": "00"}',
        '{"sequence": -1, "hash": "' + "0" * 64 + '", "taken_at": "2026-11-21T12:00:00Z"}',
        '{"sequence": "1", "hash": "' + "0" * 64 + '", "taken_at": "2026-11-21T12:00:00Z"}',
        '{"sequence": 1, "hash": "' + "Z" * 64 + '", "taken_at": "2026-11-21T12:00:00Z"}',
        '{"sequence": 1, "hash": "' + "0" * 64 + '", "taken_at": "2026-11-21T12:00:00"}',
    ],
)
def test_a_malformed_checkpoint_is_refused(text: str) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        Checkpoint.from_json(text)

    assert raised.value.field == "checkpoint"
