"""Attacks by a worker host: the fundsaga_worker database role, with plain SQL.

An account's status and a balance are what the triggers guard; these tests try to get past
them the way an insider on a worker host would: setting a status with no recorded change, or
recording one the ledger's key did not sign, and shadowing the tables the trigger functions
read with TEMP tables of the session's own.
"""

from __future__ import annotations

from collections.abc import Iterator

import psycopg.errors
import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import NullPool

from sagas.foundations import DATABASE_WORKER_ROLE
from sagas.ledger import AccountStatus, Ledger
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER
from tests.ledger._money import eur

pytestmark = [pytest.mark.postgres]


@pytest.fixture
def written(postgres_url: str) -> Iterator[Ledger]:
    """alice with 100.00 and bob with nothing, frozen and unfrozen once, sealed: verified."""
    ledger = Ledger.from_url(postgres_url, signer=TEST_SIGNER)
    ledger.open_account("alice", "EUR", opening_balance=eur(10_000))
    ledger.open_account("bob", "EUR")
    ledger.freeze("bob")
    ledger.unfreeze("bob")
    ledger.seal()
    assert findings(ledger) == []
    yield ledger
    ledger.close_connections()


@pytest.fixture
def worker(postgres_url: str) -> Iterator[Engine]:
    engine = create_engine(postgres_url, poolclass=NullPool)
    with engine.connect() as connection:
        assert connection.exec_driver_sql("SELECT current_user").scalar() == DATABASE_WORKER_ROLE
    yield engine
    engine.dispose()


def findings(ledger: Ledger) -> list[str]:
    return ledger.check_invariants() + ledger.signature_findings(TEST_KEYS.keyring.problem)


def run(worker: Engine, *statements: str) -> None:
    with worker.begin() as db:
        for statement in statements:
            db.execute(text(statement))


def refused(worker: Engine, *statements: str) -> str:
    with pytest.raises(DBAPIError) as raised:
        run(worker, *statements)
    assert isinstance(raised.value.orig, psycopg.errors.RestrictViolation), raised.value
    return str(raised.value.orig)


def test_a_status_set_with_plain_sql_is_refused(written: Ledger, worker: Engine) -> None:
    message = refused(worker, "UPDATE account SET status = 'frozen' WHERE account_id = 'alice'")

    assert "status changes only as its next recorded status change says" in message
    assert written.account("alice").status is AccountStatus.ACTIVE


def test_a_status_change_the_ledger_did_not_sign_is_found(written: Ledger, worker: Engine) -> None:
    """The worker role records the change the trigger asks for, but cannot sign it."""
    with worker.begin() as db:
        db.execute(
            text(
                "INSERT INTO account_status_change (account_id, version, status, changed_at)"
                " VALUES ('bob', 3, 'frozen', now())"
            )
        )
        db.execute(
            text(
                "UPDATE account SET status = 'frozen', status_version = 3 WHERE account_id = 'bob'"
            )
        )

    assert written.account("bob").status is AccountStatus.FROZEN
    assert findings(written) == ["account 'bob' status change 3 (frozen): is not signed"]


def test_a_temp_table_cannot_stand_in_for_the_postings_a_balance_must_follow(
    written: Ledger, worker: Engine
) -> None:
    message = refused(
        worker,
        "CREATE TEMP TABLE posting (LIKE public.posting)",
        "INSERT INTO posting (posting_id, entry_id, account_id, currency, amount, balance_after)"
        " VALUES (999999, 1, 'alice', 'EUR', 1, 99999900)",
        "UPDATE account SET balance = 99999900 WHERE account_id = 'alice'",
    )

    assert "balance changes only to the balance its latest posting reached" in message
    assert written.account("alice").balance == eur(10_000)


def test_a_temp_table_cannot_stand_in_for_the_seals_the_head_must_name(
    written: Ledger, worker: Engine
) -> None:
    message = refused(
        worker,
        "CREATE TEMP TABLE journal_seal (LIKE public.journal_seal)",
        "INSERT INTO journal_seal (sequence, entry_id, prev_hash, chain_hash)"
        f" VALUES (99, 1, '{'0' * 64}', '{'f' * 64}')",
        f"UPDATE journal_head SET sequence = 99, entry_hash = '{'f' * 64}'",
    )

    assert "the journal head moves only forward, onto a seal" in message
    assert findings(written) == []
