"""What verify() says about each kind of damage, on records held in memory."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sagas.audit import GENESIS_HASH, AuditRecord, Checkpoint, VerifyResult
from sagas.audit._record import seal
from sagas.audit._verify import Stored, verify_chain
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER

START = datetime(2026, 11, 21, 12, tzinfo=UTC)
RESEALED = {"hash", "key_id", "signature"}
"""What sealing writes anew: the chain logic is tested here as if the forger held the key."""


def chain(length: int, stamped: dict[int, datetime] | None = None) -> list[AuditRecord]:
    """A well-formed chain, record n stamped START + n seconds unless `stamped` says otherwise."""
    records: list[AuditRecord] = []
    for sequence in range(1, length + 1):
        records.append(
            seal(
                sequence=sequence,
                recorded_at=(stamped or {}).get(sequence, START + timedelta(seconds=sequence)),
                kind="terminal",
                saga_id=f"s{sequence}",
                dedupe_key=f"k{sequence}",
                payload={"n": sequence},
                prev_hash=records[-1].hash if records else GENESIS_HASH,
                signer=TEST_SIGNER,
            )
        )
    return records


def stored(records: list[AuditRecord]) -> dict[int, Stored]:
    return {r.sequence: r for r in records}


def bad(first: int, problem: str, records: int = 5) -> VerifyResult:
    return VerifyResult(ok=False, records=records, first_bad_sequence=first, problem=problem)


def checkpoint_of(record: AuditRecord) -> Checkpoint:
    return Checkpoint(record.sequence, record.hash, START)


def test_an_intact_chain() -> None:
    records = chain(5)

    result = verify_chain(stored(records), TEST_KEYS.keyring, checkpoint_of(records[-1]))

    assert result == VerifyResult(ok=True, records=5, first_bad_sequence=None, problem=None)


def test_a_changed_record() -> None:
    records = chain(5)
    records[2] = records[2].model_copy(update={"payload": {"n": 300}})

    assert verify_chain(stored(records), TEST_KEYS.keyring) == bad(
        3, "record 3 does not match its hash"
    )


def test_an_unreadable_record() -> None:
    entries = stored(chain(5)) | {2: "payload: not JSON"}

    assert verify_chain(entries, TEST_KEYS.keyring) == bad(
        2, "record 2 cannot be read: payload: not JSON"
    )


def test_a_deleted_record() -> None:
    entries = stored(chain(5))
    del entries[4]

    assert verify_chain(entries, TEST_KEYS.keyring) == bad(4, "record 4 is missing", records=4)


def test_a_record_filed_under_another_number() -> None:
    records = chain(5)
    entries = stored(records) | {2: records[1], 3: records[1]}

    assert verify_chain(entries, TEST_KEYS.keyring) == bad(3, "record 3 holds sequence number 2")


def test_a_rehashed_record_no_longer_links() -> None:
    records = chain(5)
    records[3] = seal(
        **records[3].model_dump(exclude=RESEALED | {"prev_hash"}),
        prev_hash="1" * 64,
        signer=TEST_SIGNER,
    )

    assert verify_chain(stored(records), TEST_KEYS.keyring) == bad(
        4, "record 4 does not link to record 3"
    )


def test_an_inserted_record() -> None:
    records = chain(5)
    forged = seal(
        **records[1].model_dump(exclude=RESEALED) | {"kind": "forged"}, signer=TEST_SIGNER
    )
    entries = {1: records[0], 2: forged} | {r.sequence + 1: r for r in records[1:]}

    assert verify_chain(entries, TEST_KEYS.keyring) == bad(
        2, "record 2 was inserted: record 3 skips over it", records=6
    )


def test_a_record_stamped_before_the_one_it_follows() -> None:
    """Well formed and signed, as a writer whose clock ran behind would leave it."""
    records = chain(5, stamped={4: START})

    assert verify_chain(stored(records), TEST_KEYS.keyring) == bad(
        4,
        "record 4 is stamped 2026-11-21T12:00:00.000000Z, before record 3 "
        "(2026-11-21T12:00:03.000000Z): its time goes backwards",
    )


def test_records_stamped_at_the_same_time_keep_their_order() -> None:
    records = chain(5, stamped={3: START + timedelta(seconds=2), 4: START + timedelta(seconds=2)})

    assert verify_chain(stored(records), TEST_KEYS.keyring).ok


def test_a_truncated_tail_against_a_checkpoint() -> None:
    records = chain(5)

    result = verify_chain(stored(records[:3]), TEST_KEYS.keyring, checkpoint_of(records[-1]))

    assert verify_chain(stored(records[:3]), TEST_KEYS.keyring).ok
    assert result == bad(
        4, "the chain ends at record 3 but the checkpoint names record 5", records=3
    )


def test_a_rewritten_chain_against_a_checkpoint() -> None:
    records = chain(5)
    checkpoint = checkpoint_of(records[3])
    rewritten = chain(5)[:1]
    for record in records[1:]:
        rewritten.append(
            seal(
                **record.model_dump(exclude=RESEALED | {"prev_hash", "recorded_at"}),
                recorded_at=START + timedelta(hours=1, seconds=record.sequence),
                prev_hash=rewritten[-1].hash,
                signer=TEST_SIGNER,
            )
        )

    assert verify_chain(stored(rewritten), TEST_KEYS.keyring).ok
    assert verify_chain(stored(rewritten), TEST_KEYS.keyring, checkpoint) == bad(
        4, "record 4 differs from the checkpoint: the chain was rewritten"
    )


def test_something_that_is_not_a_record() -> None:
    result = verify_chain(
        stored(chain(5)), TEST_KEYS.keyring, strays=["'notes.txt' is not a record"]
    )

    assert result == VerifyResult(False, 5, None, "'notes.txt' is not a record")
