"""The clock records are stamped with: the database server's, which no worker can skew.

On PostgreSQL the time is `clock_timestamp()`, read inside the transaction that writes, so
every worker stamps from the server's one clock. SQLite has no server: it runs inside the
worker's process, and its clock is that host's (`HostClock`); a SQLite store is a single-host
development store. Where records form a chain, the writer also never stamps one before the
record it follows (`not_before`), so a clock stepped back cannot run a chain backwards.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

from sqlalchemy import ColumnElement, Connection, ScalarSelect, func, select

from sagas.foundations._db_types import UtcDateTime

HostClock = Callable[[], datetime]
"""The host's own clock (aware, UTC): the time of a store that has no server of its own."""


def host_now() -> datetime:
    return datetime.now(UTC)


def database_now(
    connection: Connection,
    host_clock: HostClock = host_now,
    *,
    after: ScalarSelect[datetime] | None = None,
) -> datetime:
    """The database server's time now (PostgreSQL), or `host_clock()` on SQLite.

    With `after`, a query for the time of the record a chain's new record follows (read in the
    same statement), the result is never earlier than that time.
    """
    server = connection.dialect.name == "postgresql"
    columns: list[ColumnElement[datetime] | ScalarSelect[datetime]] = []
    if server:
        columns.append(func.clock_timestamp(type_=UtcDateTime()))
    if after is not None:
        columns.append(after)
    if not columns:
        return host_clock()
    row = connection.execute(select(*columns)).one()
    now: datetime = row[0] if server else host_clock()
    return not_before(now, row[-1] if after is not None else None)


def not_before(now: datetime, previous: datetime | None) -> datetime:
    """`now`, or `previous` when `now` reads earlier: the time of a record that follows one
    stamped `previous` in a chain whose times never go backwards."""
    return now if previous is None or now >= previous else previous
