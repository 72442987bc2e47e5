"""Forgeries by someone who can write the store but holds no signing key.

Every hash in a forged record or chain is correct; only the signature gives it away, at the
first forged sequence number, on every backend and without a checkpoint.
"""

from __future__ import annotations

import base64
import random
import string
from collections.abc import Iterator
from typing import Any

import pytest

from sagas.audit import AuditRecord, AuditStore, SigningKey, open_audit_store
from sagas.audit._record import seal
from tests.audit._chain import fill
from tests.audit._tamper import storage_for
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER

MALLORY = SigningKey.generate()
RESEALED = {"hash", "key_id", "signature"}


@pytest.fixture
def chain(
    store_spec: str, insider_spec: str
) -> Iterator[tuple[AuditStore, Any, list[AuditRecord]]]:
    store = open_audit_store(store_spec, TEST_KEYS)
    storage = storage_for(insider_spec)
    records = fill(store, 5, random.Random(5))
    yield store, storage, records
    storage.close_connections()
    store.close_connections()


def resealed(record: AuditRecord, signer: SigningKey, **changes: Any) -> AuditRecord:
    return seal(**record.model_dump(exclude=RESEALED) | changes, signer=signer)


def test_a_correctly_chained_append_for_a_saga_that_never_ran_is_found(
    chain: tuple[AuditStore, Any, list[AuditRecord]],
) -> None:
    store, storage, records = chain
    forged = resealed(
        records[-1],
        MALLORY,
        sequence=6,
        saga_id="transfer-forged",
        dedupe_key="transfer-forged:terminal",
        prev_hash=records[-1].hash,
    )
    storage.write(storage.read() | {6: storage.encode(forged)})

    result = store.verify()

    assert (result.ok, result.first_bad_sequence) == (False, 6)
    assert "not a trusted key" in (result.problem or "")


def test_a_rehashed_history_is_found_at_its_first_changed_record(
    chain: tuple[AuditStore, Any, list[AuditRecord]],
) -> None:
    store, storage, records = chain
    rewritten = records[:2]
    for record in records[2:]:
        changes: dict[str, Any] = {"prev_hash": rewritten[-1].hash}
        if record.sequence == 3:
            changes["payload"] = record.payload | {"amount": "999.00"}
        rewritten.append(resealed(record, MALLORY, **changes))
    storage.write({r.sequence: storage.encode(r) for r in rewritten})

    result = store.verify()

    assert (result.ok, result.first_bad_sequence) == (False, 3)


def test_a_stolen_key_id_with_a_forged_signature_is_found(
    chain: tuple[AuditStore, Any, list[AuditRecord]],
) -> None:
    store, storage, records = chain
    forged = resealed(records[3], MALLORY, payload={"amount": "999.00"})
    posing = forged.model_copy(
        update={
            "key_id": TEST_SIGNER.key_id,
            "hash": resealed(records[3], TEST_SIGNER, payload={"amount": "999.00"}).hash,
        }
    )
    storage.write(storage.read() | {4: storage.encode(posing)})

    result = store.verify()

    assert (result.ok, result.first_bad_sequence) == (False, 4)
    assert "did not make" in (result.problem or "")


def test_a_signature_spelled_another_way_is_found(
    chain: tuple[AuditStore, Any, list[AuditRecord]],
) -> None:
    """The last base64 digit of a 64-byte signature carries two unused bits: a different digit
    decodes to the same bytes, yet the stored record changed, and verification says so."""
    store, storage, records = chain
    signature = records[2].signature
    alphabet = string.ascii_uppercase + string.ascii_lowercase + string.digits + "+/"
    last = signature[-3]
    respelled = signature[:-3] + alphabet[alphabet.index(last) ^ 1] + signature[-2:]
    assert base64.b64decode(respelled) == base64.b64decode(signature)
    storage.write(
        storage.read() | {3: storage.encode(records[2].model_copy(update={"signature": respelled}))}
    )

    result = store.verify()

    assert (result.ok, result.first_bad_sequence) == (False, 3)
