"""Journal entries and postings never change; a hold changes only by closing, once.

Checked with plain SQL, as a tool with write access to the database would try it: on
PostgreSQL as the owner role, which holds UPDATE and DELETE, so what refuses is the triggers.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError

from sagas.ledger import HoldStatus, Ledger, clearing_account_id
from tests.ledger._money import eur

# triggers and grants refuse a change on PostgreSQL, triggers alone on SQLite.
pytestmark = pytest.mark.databases_differ

REFUSED = [
    pytest.param(
        "UPDATE posting SET amount = amount + 1", "posting is immutable", id="posting-update"
    ),
    pytest.param("DELETE FROM posting", "posting is immutable", id="posting-delete"),
    pytest.param(
        "UPDATE journal_entry SET saga_id = 'other'",
        "journal_entry is immutable",
        id="entry-update",
    ),
    pytest.param("DELETE FROM journal_entry", "journal_entry is immutable", id="entry-delete"),
    pytest.param("UPDATE hold SET amount = amount * 2", "hold changes only", id="hold-amount"),
    pytest.param("UPDATE hold SET status = 'active'", "hold changes only", id="hold-reopen"),
    pytest.param("DELETE FROM hold", "hold.*DELETE refused", id="hold-delete"),
    pytest.param(
        "UPDATE account SET balance = balance + 1 WHERE account_id = 'alice'",
        "balance changes only to the balance its latest posting reached",
        id="balance-without-posting",
    ),
    pytest.param(
        "UPDATE account SET currency = 'USD' WHERE account_id = 'alice'",
        "keeps its id, currency, kind and limit",
        id="account-currency",
    ),
    pytest.param(
        "UPDATE account SET overdraft = 100000 WHERE account_id = 'alice'",
        "keeps its id, currency, kind and limit",
        id="account-limit",
    ),
    pytest.param(
        "UPDATE account SET status = 'frozen' WHERE account_id = 'alice'",
        "status changes only as its next recorded status change says",
        id="status-without-a-change",
    ),
    pytest.param(
        "INSERT INTO account_status_change (account_id, version, status, changed_at)"
        " VALUES ('alice', 5, 'frozen', '2026-01-01 00:00:00')",
        "takes the next version of its account",
        id="status-change-out-of-turn",
    ),
    pytest.param(
        "UPDATE account SET balance = 5 WHERE account_id = '@clearing:EUR'",
        "balance changes only to the balance its latest posting reached",
        id="system-balance",
    ),
    pytest.param(
        "INSERT INTO account (account_id, currency, status, is_system, balance, held, overdraft,"
        " created_at, updated_at) VALUES ('mallory', 'EUR', 'active', false, 100, 0, 0,"
        " '2026-01-01 00:00:00', '2026-01-01 00:00:00')",
        "opens active with nothing",
        id="account-opened-with-money",
    ),
    pytest.param(
        "INSERT INTO journal_entry (idempotency_key, kind, created_at, sequence, prev_hash,"
        " entry_hash) VALUES ('late', 'funding', CURRENT_TIMESTAMP, 99, 'x', 'y')",
        "written unsealed",
        id="entry-claiming-a-place",
    ),
    pytest.param(
        "INSERT INTO journal_entry (idempotency_key, kind, created_at, entry_hash)"
        " VALUES ('late', 'funding', '2026-01-01 00:00:00', 'y')",
        "must be the database's time",
        id="entry-stamped-by-its-writer",
    ),
    pytest.param(
        "INSERT INTO journal_seal (sequence, entry_id, prev_hash, chain_hash)"
        " SELECT 99, MIN(entry_id), 'x', 'y' FROM journal_entry",
        "links to the seal before it",
        id="seal-off-the-chain",
    ),
    pytest.param("UPDATE journal_seal SET prev_hash = 'x'", "journal_seal", id="seal-update"),
    pytest.param("DELETE FROM journal_seal", "journal_seal", id="seal-delete"),
    pytest.param(
        "INSERT INTO posting (entry_id, account_id, currency, amount, balance_after)"
        " SELECT MIN(entry_id), 'alice', 'EUR', 1, 123456 FROM journal_entry",
        "balance_after is the previous balance",
        id="posting-running-balance",
    ),
    pytest.param(
        "UPDATE journal_head SET sequence = sequence - 1",
        "moves only forward, onto a seal",
        id="head-back",
    ),
    pytest.param("DELETE FROM journal_head", "journal_head", id="head-delete"),
]


@pytest.fixture
def moved(ledger: Ledger) -> Ledger:
    """A captured hold and its journal entry, as a transfer leaves them, sealed."""
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000))
    ledger.place_hold("s:reserve:action", "alice", eur(100), saga_id="s")
    ledger.capture_hold(
        "s:capture:action", "s:reserve:action", clearing_account_id("EUR"), saga_id="s"
    )
    ledger.seal()
    return ledger


@pytest.fixture
def owner_engine(database_owner_url: str) -> Iterator[Engine]:
    engine = create_engine(database_owner_url)
    yield engine
    engine.dispose()


def execute(engine: Engine, statement: str) -> None:
    with engine.begin() as connection:
        connection.execute(text(statement))


@pytest.mark.parametrize(("statement", "refusal"), REFUSED)
def test_a_change_to_the_journal_or_a_closed_hold_is_refused(
    moved: Ledger, owner_engine: Engine, statement: str, refusal: str
) -> None:
    before = (moved.entries(), moved.holds(), moved.accounts(include_system=True))

    with pytest.raises(DBAPIError, match=refusal):
        execute(owner_engine, statement)

    assert (moved.entries(), moved.holds(), moved.accounts(include_system=True)) == before
    assert moved.check_invariants() == []


def test_a_hold_still_closes_once_through_the_ledger(moved: Ledger) -> None:
    moved.place_hold("t:reserve:action", "alice", eur(5), saga_id="t")

    voided = moved.void_hold("t:reserve:action", saga_id="t")

    assert voided.status is HoldStatus.VOIDED
    with pytest.raises(DBAPIError, match="hold changes only"):
        execute(
            moved.engine, "UPDATE hold SET status = 'posted' WHERE hold_key = 't:reserve:action'"
        )
