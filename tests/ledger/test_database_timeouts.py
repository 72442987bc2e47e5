"""No database wait is without limit: a step blocked on a lock, a statement that runs on, an
open transaction its client forgot, and a busy SQLite file each fail as a transient error the
saga waits out, after the bound configured for the process."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from sqlalchemy import Connection, Engine
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment
from typer.testing import CliRunner

from activities.transfer import TransferActivities
from sagas import ConnectionDroppedError, DatabaseBusyError, InvalidRequestError
from sagas.cli import app
from sagas.foundations import DatabaseTimeouts, load_settings, make_engine, translate_db_errors
from sagas.ledger import Ledger, clearing_account_id
from sagas.transfer import TransferState
from tests.fixtures_audit import TEST_SIGNER
from tests.ledger._money import eur
from tests.unit._guard import transfer_call

SHORT = 0.5
"""The bound under test, in seconds."""
BOUNDED = 20.0
"""Far longer than SHORT on any machine, far shorter than forever."""
SETTINGS = (
    "FUNDSAGA_DB_LOCK_TIMEOUT",
    "FUNDSAGA_DB_STATEMENT_TIMEOUT",
    "FUNDSAGA_DB_SCAN_STATEMENT_TIMEOUT",
    "FUNDSAGA_DB_IDLE_IN_TRANSACTION_TIMEOUT",
    "FUNDSAGA_DB_BUSY_TIMEOUT",
)
TIMEOUT_NAMES = ("lock_timeout", "statement_timeout", "idle_in_transaction_session_timeout")


@contextmanager
def engine_on(url: str, timeouts: DatabaseTimeouts | None = None) -> Iterator[Engine]:
    engine = make_engine(url, timeouts=timeouts)
    try:
        yield engine
    finally:
        engine.dispose()


@contextmanager
def row_locked(url: str, account_id: str) -> Iterator[Connection]:
    """Another session (an operator's psql) holding the account's row in an open transaction;
    it commits when the block ends."""
    with engine_on(url) as engine, engine.begin() as connection:
        connection.exec_driver_sql(
            "SELECT 1 FROM account WHERE account_id = %s FOR UPDATE", (account_id,)
        )
        yield connection


def timed(call: Callable[[], object]) -> tuple[Exception, float]:
    """The exception `call` raised, and the seconds it took to raise it."""
    started = time.monotonic()
    try:
        call()
    except Exception as raised:
        return raised, time.monotonic() - started
    pytest.fail("the call did not fail")


def shown(engine: Engine) -> dict[str, str]:
    with engine.connect() as connection:
        return {
            name: str(connection.exec_driver_sql(f"SHOW {name}").scalar()) for name in TIMEOUT_NAMES
        }


@pytest.fixture
def ledger_with_short_lock_wait(postgres_url: str) -> Iterator[Ledger]:
    ledger = Ledger.from_url(
        postgres_url, signer=TEST_SIGNER, timeouts=DatabaseTimeouts(lock=SHORT)
    )
    ledger.open_account("alice", "EUR", opening_balance=eur(100_000))
    ledger.open_account("bob", "EUR")
    yield ledger
    ledger.close_connections()


def reserve(ledger: Ledger) -> TransferState:
    call = transfer_call("reserve", source="alice", destination="bob")
    state = ActivityEnvironment().run(TransferActivities(ledger).reserve, call)
    assert isinstance(state, TransferState)
    return state


@pytest.mark.postgres
def test_a_step_blocked_on_a_locked_row_fails_busy_and_writes_nothing(
    ledger_with_short_lock_wait: Ledger, postgres_url: str
) -> None:
    ledger = ledger_with_short_lock_wait

    with row_locked(postgres_url, "alice"):
        failure, waited = timed(lambda: reserve(ledger))

    assert isinstance(failure, ApplicationError)
    assert (failure.type, failure.non_retryable) == (DatabaseBusyError.__name__, False)
    assert SHORT <= waited < BOUNDED
    assert ledger.holds() == []
    assert ledger.entries(saga_id="transfer-key-1") == []
    assert ledger.account("alice").held == eur(0)


@pytest.mark.postgres
def test_the_same_step_succeeds_once_after_the_lock_holder_commits(
    ledger_with_short_lock_wait: Ledger, postgres_url: str
) -> None:
    ledger = ledger_with_short_lock_wait
    with row_locked(postgres_url, "alice"), pytest.raises(ApplicationError):
        reserve(ledger)

    first, again = reserve(ledger), reserve(ledger)

    assert first.hold_key == again.hold_key
    assert [hold.hold_key for hold in ledger.holds()] == [first.hold_key]
    assert ledger.account("alice").held == eur(10_000)


@pytest.mark.postgres
def test_a_direct_posting_blocked_on_a_locked_row_is_busy(
    ledger_with_short_lock_wait: Ledger, postgres_url: str
) -> None:
    ledger = ledger_with_short_lock_wait
    clearing = clearing_account_id("EUR")

    with row_locked(postgres_url, "alice"), pytest.raises(DatabaseBusyError):
        ledger.transfer("t1", "alice", clearing, eur(300), saga_id="s1")
    ledger.transfer("t1", "alice", clearing, eur(300), saga_id="s1")
    ledger.transfer("t1", "alice", clearing, eur(300), saga_id="s1")

    assert len(ledger.entries(saga_id="s1")) == 1
    assert ledger.account("alice").balance == eur(100_000 - 300)


@pytest.mark.postgres
def test_a_statement_that_runs_on_is_cancelled_as_busy(postgres_url: str) -> None:
    with engine_on(postgres_url, DatabaseTimeouts(statement=SHORT)) as engine:

        def sleep_long() -> None:
            with translate_db_errors(), engine.connect() as connection:
                connection.exec_driver_sql("SELECT pg_sleep(60)")

        failure, waited = timed(sleep_long)

    assert isinstance(failure, DatabaseBusyError)
    assert SHORT <= waited < BOUNDED


@pytest.mark.postgres
def test_a_transaction_left_open_is_closed_by_the_server(postgres_url: str) -> None:
    with engine_on(postgres_url, DatabaseTimeouts(idle_in_transaction=SHORT)) as engine:

        def forget_an_open_transaction() -> None:
            with translate_db_errors(), engine.begin() as connection:
                connection.exec_driver_sql("SELECT 1")
                time.sleep(SHORT * 4)
                connection.exec_driver_sql("SELECT 1")

        failure, _ = timed(forget_an_open_transaction)
        with engine.connect() as fresh:
            answer = fresh.exec_driver_sql("SELECT 1").scalar()

    assert isinstance(failure, ConnectionDroppedError)
    assert answer == 1


@pytest.mark.postgres
def test_a_default_engine_has_the_documented_bounds(postgres_url: str) -> None:
    with engine_on(postgres_url) as engine:
        assert shown(engine) == {
            "lock_timeout": "5s",
            "statement_timeout": "30s",
            "idle_in_transaction_session_timeout": "1min",
        }


@pytest.mark.postgres
def test_migrations_wait_for_locks_but_not_for_long_statements(postgres_url: str) -> None:
    with engine_on(postgres_url, DatabaseTimeouts.for_migrations()) as engine:
        assert shown(engine) == {
            "lock_timeout": "10s",
            "statement_timeout": "0",
            "idle_in_transaction_session_timeout": "10min",
        }


@pytest.mark.postgres
def test_options_in_the_url_are_kept_and_win(postgres_url: str) -> None:
    url = f"{postgres_url}?options=-c%20lock_timeout%3D2s%20-c%20application_name%3Dops"
    with engine_on(url) as engine, engine.connect() as connection:
        assert connection.exec_driver_sql("SHOW lock_timeout").scalar() == "2s"
        assert connection.exec_driver_sql("SHOW application_name").scalar() == "ops"
        assert connection.exec_driver_sql("SHOW statement_timeout").scalar() == "30s"


@pytest.mark.postgres
def test_a_command_behind_a_migrations_table_lock_says_busy_after_the_configured_wait(
    postgres_url: str, postgres_owner_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    env = {"FUNDSAGA_DATABASE_URL": postgres_url, "FUNDSAGA_DB_LOCK_TIMEOUT": str(SHORT)}

    with engine_on(postgres_owner_url) as owner, owner.begin() as migration:
        migration.exec_driver_sql("LOCK TABLE account IN ACCESS EXCLUSIVE MODE")
        started = time.monotonic()
        result = CliRunner().invoke(app, ["accounts", "list"], env=env, prog_name="fundsaga")
        waited = time.monotonic() - started

    assert result.exit_code == 1, result.output
    assert "DatabaseBusyError" in result.output
    assert SHORT <= waited < BOUNDED


@pytest.mark.parametrize("name", SETTINGS)
@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf", "86401", "five"])
def test_a_bad_bound_in_the_environment_is_refused_naming_it(
    name: str, value: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(name, value)

    with pytest.raises(InvalidRequestError) as refused:
        load_settings()

    assert refused.value.field == name


def test_the_environment_sets_the_bounds(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in zip(SETTINGS, ("1.5", "20", "600", "45", "2"), strict=True):
        monkeypatch.setenv(name, value)
    settings = load_settings()

    assert settings.database_timeouts() == DatabaseTimeouts(
        lock=1.5, statement=20, idle_in_transaction=45, busy=2
    )
    assert settings.database_timeouts(scans=True).statement == 600


@pytest.mark.parametrize("field", ["lock", "statement", "idle_in_transaction", "busy"])
def test_a_bound_that_is_not_a_positive_number_of_seconds_is_refused(field: str) -> None:
    with pytest.raises(InvalidRequestError) as refused:
        DatabaseTimeouts(**{field: 0})

    assert refused.value.field == field


def test_a_second_sqlite_writer_gives_up_after_the_busy_timeout(sqlite_url: str) -> None:
    ledger = Ledger.from_url(sqlite_url, signer=TEST_SIGNER, timeouts=DatabaseTimeouts(busy=SHORT))
    ledger.open_account("alice", "EUR", opening_balance=eur(100_000))
    clearing = clearing_account_id("EUR")
    holder = sqlite3.connect(sqlite_url.removeprefix("sqlite:///"), isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        failure, waited = timed(
            lambda: ledger.transfer("t1", "alice", clearing, eur(300), saga_id="s1")
        )
        holder.execute("COMMIT")

        assert isinstance(failure, DatabaseBusyError)
        assert SHORT * 0.9 <= waited < BOUNDED
        assert ledger.entries(saga_id="s1") == []
        ledger.transfer("t1", "alice", clearing, eur(300), saga_id="s1")
        assert len(ledger.entries(saga_id="s1")) == 1
    finally:
        holder.close()
        ledger.close_connections()


def test_sqlite_waits_five_seconds_by_default(sqlite_url: str) -> None:
    with engine_on(sqlite_url) as engine, engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA busy_timeout").scalar() == 5000
