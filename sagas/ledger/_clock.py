"""The ledger's time: the database's clock, read once per transaction (one time for every row
it stamps); a journal entry's is never before its customer accounts' latest movement.

The database holds writers to it: a trigger refuses an entry, hold or claim whose time is not
the database's (revision 2026_11_28_0013), since the writer's hash and signature cover that
time and the database cannot stamp its own in its place. No verdict rests on it: what Temporal
may have forgotten is decided by the journal's anchors (sagas.verify's AnchoredReach)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from sagas.foundations import HostClock, database_now, host_now

HOST_CLOCK_INFO = "fundsaga_host_clock"
"""The session.info key under which the Ledger hands over its host clock (SQLite's time)."""
_NOW_INFO = "fundsaga_now"


def host_clock_of(session: Session) -> HostClock:
    clock: HostClock = session.info.get(HOST_CLOCK_INFO, host_now)
    return clock


def keep_transaction_now(session: Session, now: datetime) -> None:
    """Take `now`, the database's time read along with another query, as the transaction's
    time, unless it has one: one round trip fewer."""
    transaction = session.get_transaction()
    kept = session.info.get(_NOW_INFO)
    if kept is None or kept[0] is not transaction:
        session.info[_NOW_INFO] = (transaction, now)


def advance_transaction_now(session: Session, at: datetime) -> None:
    """Make `at` the transaction's time if it is later: what the transaction stamps after an
    entry it clamped forward (to its accounts' latest movement) is never before that entry."""
    if transaction_now(session) < at:
        session.info[_NOW_INFO] = (session.get_transaction(), at)


def transaction_now(session: Session) -> datetime:
    """The database's time, read at the transaction's first call and kept for the rest."""
    transaction = session.get_transaction()
    kept = session.info.get(_NOW_INFO)
    if kept is not None and kept[0] is transaction:
        now: datetime = kept[1]
        return now
    now = database_now(session.connection(), host_clock_of(session))
    session.info[_NOW_INFO] = (transaction, now)
    return now
