"""Attacks on the ledger by someone who can write its database, each found by verification.

The attacker either has the worker's privileges (the triggers stand) or owns the database and
switches the triggers off first; neither holds the worker's signing key. Each test starts from
a real, anchored ledger that verifies clean, changes it, and reads the first finding, which is
what `fundsaga ledger verify` prints.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import Connection, Engine, delete, func, insert, select, text, update
from sqlalchemy.exc import DBAPIError

from activities.audit import anchor_journal
from sagas.audit import AnchorStore, SigningKey, open_audit_store
from sagas.foundations import make_engine
from sagas.ledger import GENESIS_HASH, Ledger, content_hash, metadata, seal_hash
from sagas.ledger._signing import entry_message
from sagas.verify import LedgerVerdict, verify_ledger
from tests.fixtures_audit import TEST_KEYS
from tests.ledger._money import eur
from tests.ledger._owner import cut_tail, guards_off

# what an insider can write: the worker role's grants on PostgreSQL, the file on SQLite.
pytestmark = pytest.mark.databases_differ


@pytest.fixture
def anchors(tmp_path: Path) -> Iterator[AnchorStore]:
    store = AnchorStore(open_audit_store(f"dir:{tmp_path / 'anchors'}", TEST_KEYS))
    yield store
    store.close_connections()


@pytest.fixture
def owner(database_owner_url: str) -> Iterator[Engine]:
    """The database as its owner reaches it: on PostgreSQL the role that may disable triggers."""
    engine = make_engine(database_owner_url)
    yield engine
    engine.dispose()


@pytest.fixture
def worker(database_url: str) -> Iterator[Engine]:
    """The database with the worker's grants only (on PostgreSQL, the fundsaga_worker role)."""
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def anchored(ledger: Ledger, anchors: AnchorStore) -> Ledger:
    """Entries #1 open:alice (100), #2 t-1 alice->bob (30), #3 t-2 bob->alice (5), #4 t-3
    alice->bob (20), anchored at #4, and hold h-1 of 10 on alice still active (minor units)."""
    ledger.open_account("alice", "EUR", opening_balance=eur(100))
    ledger.open_account("bob", "EUR")
    ledger.transfer("t-1", "alice", "bob", eur(30), saga_id="s-1")
    ledger.place_hold("h-1", "alice", eur(10), saga_id="s-2")
    ledger.transfer("t-2", "bob", "alice", eur(5), saga_id="s-3")
    ledger.transfer("t-3", "alice", "bob", eur(20), saga_id="s-4")
    anchor_journal(ledger, anchors)
    assert verify(ledger, anchors).findings == []
    return ledger


FORGED_SIGNATURE = (
    f"carries a signature that key {TEST_KEYS.require_signer().key_id!r} did not make"
)


def verify(ledger: Ledger, anchors: AnchorStore) -> LedgerVerdict:
    return verify_ledger(ledger, anchors, TEST_KEYS.keyring)


def first_finding(ledger: Ledger, anchors: AnchorStore) -> str:
    verdict = verify(ledger, anchors)
    assert not verdict.ok
    return verdict.findings[0]


def test_a_consistent_rewrite_with_the_triggers_off_is_found_at_its_entry(
    anchored: Ledger, anchors: AnchorStore, owner: Engine
) -> None:
    with guards_off(owner) as db:
        t1 = select(ENTRY.c.entry_id).where(ENTRY.c.idempotency_key == "t-1").scalar_subquery()
        for account, delta in (("alice", -10), ("bob", 10)):
            db.execute(
                update(POSTING)
                .where(POSTING.c.entry_id == t1, POSTING.c.account_id == account)
                .values(amount=POSTING.c.amount + delta)
            )
            add_to_balance(db, account, delta)

    finding = first_finding(anchored, anchors)

    assert finding == (
        "entry #2 't-1': its content or postings differ from what was hashed: rewritten"
    )


def test_a_rewrite_re_hashed_to_the_head_is_found_by_the_signatures_and_the_anchor(
    anchored: Ledger, anchors: AnchorStore, owner: Engine
) -> None:
    with guards_off(owner) as db:
        t1 = select(ENTRY.c.entry_id).where(ENTRY.c.idempotency_key == "t-1").scalar_subquery()
        db.execute(
            update(POSTING).where(POSTING.c.entry_id == t1).values(amount=POSTING.c.amount * 2)
        )
        rechain(db)

    verdict = verify(anchored, anchors)

    assert verdict.findings[0] == f"entry #2 't-1': {FORGED_SIGNATURE}"
    assert f"entry #4 't-3': {FORGED_SIGNATURE}" in verdict.findings
    assert re.match(r"entry #4: not the entry anchored on .*Z", verdict.findings[-1])
    assert not any("differ from what was hashed" in finding for finding in verdict.findings)


def test_a_deleted_entry_is_found_as_a_gap(
    anchored: Ledger, anchors: AnchorStore, owner: Engine
) -> None:
    with guards_off(owner) as db:
        delete_entry(db, "t-2")

    assert first_finding(anchored, anchors) == (
        "entry #4 't-3': entries #3 are missing: deleted from the journal"
    )


def test_a_deleted_first_entry_is_found_as_a_gap_and_a_broken_balance(
    anchored: Ledger, anchors: AnchorStore, owner: Engine
) -> None:
    with guards_off(owner) as db:
        delete_entry(db, "open:alice", balances=False)

    findings = verify(anchored, anchors).findings

    assert findings[0] == "entry #2 't-1': entries #1 are missing: deleted from the journal"
    assert "entry #2 't-1': alice goes from 0 by -30 to 70: its running balance was altered" in (
        findings
    )


def test_two_entries_swapped_in_the_chain_and_re_sealed_are_found(
    anchored: Ledger, anchors: AnchorStore, owner: Engine
) -> None:
    """The seals of t-1 and t-2 exchanged and the chain re-hashed from there with the public
    seal hash: the links hold, but the accounts' histories and the anchor do not."""
    with guards_off(owner) as db:
        swap_seals(db, 2, 3)

    findings = verify(anchored, anchors).findings

    assert findings[0] == (
        "entry #2 't-2': bob goes from 0 by -5 to 25: its running balance was altered"
    )
    assert re.match(r"entry #4: not the entry anchored on .*Z", findings[-1])


def test_a_deleted_last_entry_with_the_head_moved_back_is_found_by_the_anchor(
    anchored: Ledger, anchors: AnchorStore, owner: Engine
) -> None:
    with guards_off(owner) as db:
        delete_entry(db, "t-3")
        rechain(db)

    assert re.fullmatch(
        r"entry #4 was anchored on .*Z, but the journal ends at #3: entries were deleted",
        first_finding(anchored, anchors),
    )


def test_a_cut_tail_with_its_anchors_dropped_is_found_by_the_verifier_s_memory(
    anchored: Ledger, anchors: AnchorStore, owner: Engine, tmp_path: Path
) -> None:
    """The owner cuts the newest entries, sets the balances back, moves the head back and drops
    every anchor: the rest is a sound chain that only a verifier who saw #4 can contradict."""
    memory = tmp_path / "verifier" / "ledger-verified-head.json"
    assert remembering(anchored, anchors, memory).ok
    with guards_off(owner) as db:
        assert cut_tail(db, 2) == 2
    drop_every_file(tmp_path / "anchors", anchors)

    assert verify(anchored, anchors).findings == []
    assert remembering(anchored, anchors, memory).findings == [
        f"journal rolled back: it ends at #2, but this verifier accepted entry #4 on "
        f"{datetime.now(UTC):%Y-%m-%d %H:%M}Z"
    ]


def test_a_cut_tail_written_over_since_is_found_by_the_verifier_s_memory(
    anchored: Ledger, anchors: AnchorStore, owner: Engine, tmp_path: Path
) -> None:
    """Business went on after the cut: the journal reaches #4 again, with other entries."""
    memory = tmp_path / "verifier" / "ledger-verified-head.json"
    assert remembering(anchored, anchors, memory).ok
    with guards_off(owner) as db:
        cut_tail(db, 2)
    drop_every_file(tmp_path / "anchors", anchors)
    anchored.transfer("t-8", "alice", "bob", eur(1), saga_id="s-8")
    anchored.transfer("t-9", "alice", "bob", eur(1), saga_id="s-9")
    anchored.seal()

    (finding,) = remembering(anchored, anchors, memory).findings
    assert re.fullmatch(
        r"journal rolled back: entry #4 is not the entry this verifier accepted there on .*Z: "
        r"the chain was rewritten from it",
        finding,
    )


def remembering(ledger: Ledger, anchors: AnchorStore, memory: Path) -> LedgerVerdict:
    return verify_ledger(ledger, anchors, TEST_KEYS.keyring, memory=memory)


def drop_every_file(directory: Path, anchors: AnchorStore) -> None:
    """Delete the anchor store's files, as its owner can; the verifier reads the store anew."""
    for path in directory.glob("*.json"):
        path.chmod(0o644)
        path.unlink()
    anchors.close_connections()


def test_an_entry_appended_with_the_triggers_standing_is_found_unsigned(
    anchored: Ledger, anchors: AnchorStore, worker: Engine
) -> None:
    """Written as the triggers demand (unsealed, running balances following) and sealed, so the
    chain is sound: only the writer's signature is missing."""
    intruder = SigningKey.generate()
    with worker.begin() as db:
        append_funding(db, "bob", 1_000, intruder)
    anchored.seal()

    verdict = verify(anchored, anchors)

    assert verdict.findings == [
        f"entry #5 'gift': is signed by key {intruder.key_id!r}, which is not a trusted key"
    ]
    assert anchored.account("bob").balance == eur(1_045)


def test_an_entry_stamped_before_the_one_it_follows_is_found_even_signed_by_the_worker(
    anchored: Ledger, anchors: AnchorStore, worker: Engine
) -> None:
    """Chained, balanced and signed with the worker's own key, as a worker whose clock ran an
    hour behind would have written it before the ledger took the database's time. The database
    refuses the time now (revision 2026_11_28_0013): on SQLite the file's holder drops that
    trigger first; PostgreSQL's worker role cannot, and nothing is written."""
    last = max(e.created_at for e in anchored.entries() if e.idempotency_key == "t-3")
    stamped = last - timedelta(hours=1)
    if worker.dialect.name == "postgresql":
        with pytest.raises(DBAPIError, match="must be the database's time"):
            append_funding_as(worker, stamped)
        assert anchored.entry("gift") is None
        return
    with worker.begin() as db:
        db.execute(text("DROP TRIGGER journal_entry_server_time"))
    append_funding_as(worker, stamped)
    anchored.seal()

    assert verify(anchored, anchors).findings == [
        f"entry #5 'gift': stamped {stamped.isoformat()}, before the entry it follows "
        f"on bob ({last.isoformat()}): its time goes backwards"
    ]


def append_funding_as(worker: Engine, stamped: datetime) -> None:
    with worker.begin() as db:
        append_funding(db, "bob", 1_000, TEST_KEYS.require_signer(), created_at=stamped)


def test_a_hold_voided_behind_the_ledgers_back_is_found(
    anchored: Ledger, anchors: AnchorStore, worker: Engine
) -> None:
    """Active to voided is the one change the triggers allow a hold, so no guard stops it."""
    with worker.begin() as db:
        db.execute(update(HOLD).values(status="voided", closed_at=func.now()))  # the server's
        db.execute(update(ACCOUNT).where(ACCOUNT.c.account_id == "alice").values(held=0))

    assert first_finding(anchored, anchors) == (
        f"hold 'h-1' (voided): {FORGED_SIGNATURE}: changed outside the ledger"
    )


# ---- what the attacker does by hand, with the ledger's own public hash function

ENTRY = metadata.tables["journal_entry"]
POSTING = metadata.tables["posting"]
ACCOUNT = metadata.tables["account"]
HEAD = metadata.tables["journal_head"]
SEAL = metadata.tables["journal_seal"]
HOLD = metadata.tables["hold"]


def add_to_balance(db: Connection, account: str, delta: int) -> None:
    """A customer account's cached balance; a system account's is the sum of its postings."""
    if account.startswith("@"):
        return
    db.execute(
        update(ACCOUNT)
        .where(ACCOUNT.c.account_id == account)
        .values(balance=ACCOUNT.c.balance + delta)
    )


def delete_entry(db: Connection, key: str, *, balances: bool = True) -> None:
    """Delete the entry, its seal and its postings, and undo them on the account balances
    (unless that would take an account below its limit: `balances=False`)."""
    entry_id = db.execute(select(ENTRY.c.entry_id).where(ENTRY.c.idempotency_key == key)).scalar()
    postings = db.execute(
        select(POSTING.c.account_id, POSTING.c.amount).where(POSTING.c.entry_id == entry_id)
    ).all()
    for account, amount in postings if balances else []:
        add_to_balance(db, account, -amount)
    db.execute(delete(SEAL).where(SEAL.c.entry_id == entry_id))
    db.execute(delete(POSTING).where(POSTING.c.entry_id == entry_id))
    db.execute(delete(ENTRY).where(ENTRY.c.entry_id == entry_id))


def swap_seals(db: Connection, first: int, second: int) -> None:
    """Exchange the entries two seals name, and re-hash every link from the first on."""
    names = dict(db.execute(select(SEAL.c.sequence, SEAL.c.entry_id)).all())
    db.execute(delete(SEAL).where(SEAL.c.sequence >= first))
    names[first], names[second] = names[second], names[first]
    prev_hash = db.execute(
        select(SEAL.c.chain_hash).where(SEAL.c.sequence == first - 1)
    ).scalar_one()
    for sequence in sorted(n for n in names if n >= first):
        digest = db.execute(
            select(ENTRY.c.entry_hash).where(ENTRY.c.entry_id == names[sequence])
        ).scalar_one()
        link = seal_hash(sequence, prev_hash, digest)
        db.execute(
            insert(SEAL).values(
                sequence=sequence, entry_id=names[sequence], prev_hash=prev_hash, chain_hash=link
            )
        )
        prev_hash = link
    db.execute(update(HEAD).values(entry_hash=prev_hash))


def rechain(db: Connection) -> None:
    """Re-hash and re-balance every entry, re-seal the journal and move the head: a chain that
    holds together, made without the signing key."""
    balances: dict[str, int] = {}
    prev_hash, sequence = GENESIS_HASH, 0
    db.execute(delete(SEAL))
    for entry in db.execute(select(ENTRY).order_by(ENTRY.c.entry_id)).all():
        sequence += 1
        content: list[tuple[str, str, int, int | None]] = []
        postings = select(POSTING).where(POSTING.c.entry_id == entry.entry_id)
        for posting in db.execute(postings.order_by(POSTING.c.posting_id)).all():
            after = None
            if not posting.account_id.startswith("@"):
                after = balances.get(posting.account_id, 0) + posting.amount
                balances[posting.account_id] = after
            content.append((posting.account_id, posting.currency, posting.amount, after))
            db.execute(
                update(POSTING)
                .where(POSTING.c.posting_id == posting.posting_id)
                .values(balance_after=after)
            )
        digest = content_hash(
            key=entry.idempotency_key,
            saga_id=entry.saga_id,
            kind=entry.kind,
            reverses_entry_id=entry.reverses_entry_id,
            created_at=entry.created_at,
            postings=content,
        )
        db.execute(
            update(ENTRY).where(ENTRY.c.entry_id == entry.entry_id).values(entry_hash=digest)
        )
        link = seal_hash(sequence, prev_hash, digest)
        db.execute(
            insert(SEAL).values(
                sequence=sequence, entry_id=entry.entry_id, prev_hash=prev_hash, chain_hash=link
            )
        )
        prev_hash = link
    for account, balance in balances.items():
        db.execute(update(ACCOUNT).where(ACCOUNT.c.account_id == account).values(balance=balance))
    db.execute(update(HEAD).values(sequence=sequence, entry_hash=prev_hash))


def append_funding(
    db: Connection,
    account: str,
    amount: int,
    signer: SigningKey,
    created_at: datetime | None = None,
) -> None:
    """Write a funding entry exactly as the ledger would, signed with `signer` and stamped
    `created_at` (now, by default), for the sealer to seal."""
    balance = db.execute(
        select(ACCOUNT.c.balance).where(ACCOUNT.c.account_id == account)
    ).scalar_one()
    legs: list[tuple[str, str, int, int | None]] = [
        ("@funding:EUR", "EUR", -amount, None),
        (account, "EUR", amount, balance + amount),
    ]
    created_at = created_at or datetime.now(UTC)
    digest = content_hash(
        key="gift",
        saga_id=None,
        kind="funding",
        reverses_entry_id=None,
        created_at=created_at,
        postings=legs,
    )
    entry_id = db.execute(
        insert(ENTRY).values(
            idempotency_key="gift",
            saga_id=None,
            kind="funding",
            reverses_entry_id=None,
            created_at=created_at,
            entry_hash=digest,
            key_id=signer.key_id,
            signature=signer.sign(entry_message(digest)),
        )
    ).inserted_primary_key
    assert entry_id is not None
    for leg_account, code, leg_amount, after in legs:
        db.execute(
            insert(POSTING).values(
                entry_id=entry_id[0],
                account_id=leg_account,
                currency=code,
                amount=leg_amount,
                balance_after=after,
            )
        )
        add_to_balance(db, leg_account, leg_amount)
