"""Money minted by backdating (issue 45's blocker), played with what a worker host holds: the
ledger's database role (on SQLite, the file itself) and the audit signing key.

The insider stamps journal entries three days back, past the namespace's retention, moves
money from @funding and @clearing into a mule account for a saga that never ran, and signs a
`completed` record naming it. The database refuses a time it did not give (PostgreSQL: the
writer never gets to choose it; SQLite: unless the file's holder drops the trigger, the
development store's residual risk), and `ledger verify` no longer asks the entry how old it is:
it is past retention only if a journal anchor taken before the retention ended covers it.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, Table, func, insert, select, text
from sqlalchemy.exc import DBAPIError
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from activities.audit import anchor_journal
from sagas.audit import AnchorStore, AuditStore, open_audit_store
from sagas.audit import metadata as audit_metadata
from sagas.audit._record import seal
from sagas.client import FundsagaClient
from sagas.engine import AuditKind
from sagas.foundations import HostClock, make_engine
from sagas.ledger import JOURNAL_CHAIN, EntryKind, Ledger, content_hash, entry_message, metadata
from sagas.testing import dev_identity, fund_by_two
from sagas.verify.witness import _temporal_histories as temporal_histories
from sagas.worker import build_worker
from tests.audit._tamper import storage_for
from tests.e2e.conftest import eur, fundsaga
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER

pytestmark = pytest.mark.long

RETENTION = timedelta(days=1)
BACKDATED = timedelta(days=3)
GHOST = "transfer-ghost"
SERVER_TIME = "must be the database's time"
AUDIT_WRITER = "fundsaga_audit_writer"
"""The role the audit table's store appends as (the worker's role may take it)."""


def shifted(by: timedelta) -> HostClock:
    return lambda: datetime.now(UTC) + by


@dataclass(frozen=True)
class Deployment:
    """A run's ledger, audit trail and anchors, the anchors' first taken two days ago."""

    ledger: Ledger
    store: AuditStore
    anchors: Path
    url: str


async def one_day(temporal: Client) -> timedelta:
    return RETENTION


@pytest.fixture
async def deployment(
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    ledger: Ledger,
    database_url: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> AsyncIterator[Deployment]:
    """A funding by two operators, anchored in the past the test builds as the owner of the
    anchor store (two days ago, before the day's retention ended); then a transfer, and the
    anchor the schedule takes now. Temporal's namespace keeps closed histories a day."""
    monkeypatch.setattr(temporal_histories, "namespace_retention", one_day)
    for account in ("alice", "bob"):
        ledger.open_account(account, "EUR")
    store = open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    async with build_worker(
        dev_env.client, cli_task_queue, ledger, store, operators=dev_identity().check()
    ):
        await fund_by_two(dev_env.client, cli_task_queue, "alice", eur("100.00"))
        past = AnchorStore(
            open_audit_store(
                f"dir:{tmp_path / 'anchors'}", TEST_KEYS, clock=shifted(-2 * RETENTION)
            )
        )
        anchor_journal(ledger, past)
        head = store.head()
        assert head is not None
        past.anchor(head)
        client = FundsagaClient(dev_env.client, cli_task_queue)
        key = f"transfer-{uuid.uuid4().hex[:8]}"
        body = {"source_account": "alice", "destination_account": "bob", "currency": "EUR"}
        await client.start("transfer", {"idempotency_key": key, "amount": "10.00", **body})
        await client.saga("transfer", key).outcome()
    assert await fundsaga("audit", "anchor") == 0  # the schedule's anchor of the journal, now
    yield Deployment(ledger, store, tmp_path / "anchors", database_url)
    store.close_connections()


def mint_backdated(deployment: Deployment, amount: str) -> list[str]:
    """The insider's two entries for a saga that never ran, stamped three days back by a
    worker whose clock says so (on SQLite, once the file's holder dropped the trigger that
    refuses it), sealed as the worker's sealer does; and a signed `completed` record for the
    saga. Their keys."""
    if deployment.url.startswith("sqlite"):
        engine = make_engine(deployment.url)
        with engine.begin() as connection:
            connection.execute(text("DROP TRIGGER journal_entry_server_time"))
        engine.dispose()
    mallory = Ledger.from_url(deployment.url, signer=TEST_SIGNER, clock=shifted(-BACKDATED))
    mallory.open_account("mule", "EUR")
    keys = [f"{GHOST}:credit:action", f"{GHOST}:settle:action"]
    for key, source in zip(keys, ("@funding:EUR", "@clearing:EUR"), strict=True):
        mallory.transfer(key, source, "mule", eur(amount), saga_id=GHOST)
    mallory.seal()
    mallory.close_connections()
    deployment.store.append(
        kind=AuditKind.COMPLETED,
        saga_id=GHOST,
        dedupe_key=f"{GHOST}:completed",
        payload={"saga_id": GHOST, "status": "COMPLETED"},
    )
    return keys


async def ledger_verify(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = await fundsaga("ledger", "verify", "--output", "json")
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, report


def young_entry(key: str) -> str:
    return (
        f"entry '{key}' has no witness: Temporal does not know {GHOST}, yet the entry is not "
        f"past the namespace's retention ({RETENTION}): unsealed, or no journal anchor taken "
        "before the retention ended covers it; its history must be there (it never ran, or it "
        "was deleted)"
    )


async def test_money_minted_by_backdating_is_found_by_ledger_verify(
    deployment: Deployment, capsys: pytest.CaptureFixture[str]
) -> None:
    """5,000.00 EUR each from @funding and @clearing on SQLite, stamped three days back; on
    PostgreSQL the same writer's entries carry the server's time. Either way no anchor taken
    before the retention ended covers them: Temporal must know their saga, and does not."""
    started = datetime.now(UTC)
    keys = mint_backdated(deployment, "5000.00")

    code, report = await ledger_verify(capsys)
    audit_code = await fundsaga("audit", "compensations", "--output", "json")
    audit = json.loads(capsys.readouterr().out)

    stamps = [entry.created_at for entry in deployment.ledger.entries(saga_id=GHOST)]
    if deployment.url.startswith("sqlite"):
        assert all(stamp < started - BACKDATED + timedelta(minutes=1) for stamp in stamps)
    else:
        assert all(stamp >= started for stamp in stamps)  # the server's time, not the writer's
    assert deployment.ledger.account("mule").balance == eur("10000.00")
    assert code == 1
    assert report["findings"] == [young_entry(key) for key in keys]
    assert audit_code == 1
    assert [f"ledger: {young_entry(key)}" for key in keys] == [
        finding for finding in audit["findings"] if finding.startswith("ledger: ")
    ]


async def test_an_anchor_backdated_into_a_directory_anchor_store_is_a_finding(
    deployment: Deployment, capsys: pytest.CaptureFixture[str]
) -> None:
    """The worker writes anchors too, so its key signs one naming the minted entries, stamped
    before the retention ended: its time goes back past the anchor the schedule took, and it
    counts for nothing."""
    keys = mint_backdated(deployment, "5000.00")
    storage: Any = storage_for(f"dir:{deployment.anchors}")
    head = deployment.ledger.chain_head()
    previous = open_audit_store(f"dir:{deployment.anchors}", TEST_KEYS).head()
    assert previous is not None
    last = previous.sequence
    forged = seal(
        sequence=last + 1,
        recorded_at=datetime.now(UTC) - 2 * RETENTION + timedelta(hours=1),
        kind="anchor",
        saga_id=JOURNAL_CHAIN,
        dedupe_key=f"anchor:{JOURNAL_CHAIN}:{head.sequence}",
        payload={"sequence": head.sequence, "hash": head.entry_hash},
        prev_hash=previous.hash,
        signer=TEST_SIGNER,
    )
    storage.write(storage.read() | {last + 1: storage.encode(forged)})

    code, report = await ledger_verify(capsys)

    assert code == 1
    assert report["findings"][0].startswith(
        f"anchor store broken at anchor {last + 1}: record {last + 1} is stamped "
    )
    assert report["findings"][0].endswith("its time goes backwards")
    assert report["findings"][1:] == [young_entry(key) for key in keys]


def rows_stamped(at: datetime) -> dict[str, dict[str, object]]:
    """A row of each table whose time the database gives, stamped `at`: an entry hashed and
    signed with the worker's key, a hold, a claim, and a signed audit record."""
    digest = content_hash(
        key=f"{GHOST}:credit:action",
        saga_id=GHOST,
        kind=EntryKind.TRANSFER,
        reverses_entry_id=None,
        created_at=at,
        postings=[],
    )
    record = seal(
        sequence=1,
        recorded_at=at,
        kind=AuditKind.COMPLETED,
        saga_id=GHOST,
        dedupe_key=f"{GHOST}:completed",
        payload={},
        prev_hash="0" * 64,
        signer=TEST_SIGNER,
    )
    return {
        "journal_entry": {
            "idempotency_key": f"{GHOST}:credit:action",
            "saga_id": GHOST,
            "kind": EntryKind.TRANSFER,
            "created_at": at,
            "entry_hash": digest,
            "key_id": TEST_SIGNER.key_id,
            "signature": TEST_SIGNER.sign(entry_message(digest)),
        },
        "hold": {
            "hold_key": f"{GHOST}:reserve:action",
            "account_id": "alice",
            "currency": "EUR",
            "amount": 100,
            "status": "active",
            "saga_id": GHOST,
            "created_at": at,
        },
        "saga_claim": {
            "saga_id": GHOST,
            "run_chain": "r1",
            "saga_type": "transfer",
            "claimed_at": at,
        },
        "audit_record": {**record.model_dump(), "payload": "{}"},
    }


def table(name: str) -> Table:
    return audit_metadata.tables[name] if name == "audit_record" else metadata.tables[name]


def count(engine: Engine, name: str) -> int:
    with engine.connect() as connection:
        return int(connection.execute(select(func.count()).select_from(table(name))).scalar_one())


def insert_as_worker(engine: Engine, name: str, row: dict[str, object]) -> None:
    with engine.begin() as connection:
        if name == "audit_record" and connection.dialect.name == "postgresql":
            connection.execute(text(f"SET LOCAL ROLE {AUDIT_WRITER}"))
        connection.execute(insert(table(name)).values(row))


@pytest.mark.parametrize("shift", [-BACKDATED, timedelta(hours=1)], ids=["back", "ahead"])
def test_a_time_the_worker_chose_is_refused_by_the_database(
    ledger: Ledger, database_url: str, shift: timedelta
) -> None:
    """As the worker's role, signed with its key: an entry, hold, claim and audit record
    stamped three days back (or an hour ahead) are each refused, and nothing is written."""
    ledger.open_account("alice", "EUR")
    engine = make_engine(database_url)
    for name, row in rows_stamped(datetime.now(UTC) + shift).items():
        before = count(engine, name)
        with pytest.raises(DBAPIError, match=SERVER_TIME):
            insert_as_worker(engine, name, row)
        assert count(engine, name) == before, name
    engine.dispose()


def test_a_worker_whose_clock_is_three_days_back_writes_nothing_backdated(
    ledger: Ledger, database_url: str
) -> None:
    """The ledger's own code with the host's clock set back: PostgreSQL stamps its server's
    time, which the writer reads in the transaction; SQLite, whose time is the host's, refuses."""
    started = datetime.now(UTC)
    behind = Ledger.from_url(database_url, signer=TEST_SIGNER, clock=shifted(-BACKDATED))
    try:
        behind.open_account("bob", "EUR")  # its latest movement would clamp a time forward
        if database_url.startswith("sqlite"):
            with pytest.raises(DBAPIError, match=SERVER_TIME):
                behind.transfer(
                    f"{GHOST}:credit:action", "@funding:EUR", "bob", eur("1.00"), saga_id=GHOST
                )
            assert ledger.entries(saga_id=GHOST) == []
        else:
            behind.transfer(
                f"{GHOST}:credit:action", "@funding:EUR", "bob", eur("1.00"), saga_id=GHOST
            )
            (entry,) = ledger.entries(saga_id=GHOST)
            assert entry.created_at >= started
    finally:
        behind.close_connections()
