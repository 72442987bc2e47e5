"""The engine's before-step snapshots, one row per (saga, step)."""

from __future__ import annotations

import json
from typing import cast

from sqlalchemy import Table, case, select
from sqlalchemy.dialects.postgresql import Insert as PostgresqlInsert
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import Insert as SqliteInsert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from sagas.engine import Snapshot
from sagas.foundations import InvalidRequestError
from sagas.ledger._models import SagaSnapshot

_TABLE = cast(Table, SagaSnapshot.__table__)


def _upsert(statement: SqliteInsert | PostgresqlInsert) -> SqliteInsert | PostgresqlInsert:
    """INSERT ... ON CONFLICT (saga, step) DO UPDATE attempt = the higher of the two."""
    table = _TABLE
    raised = case(
        (statement.excluded.attempt > table.c.attempt, statement.excluded.attempt),
        else_=table.c.attempt,
    )
    return statement.on_conflict_do_update(
        index_elements=[table.c.saga_id, table.c.step_index], set_={"attempt": raised}
    )


_UPSERT_BY_DIALECT = {
    "sqlite": _upsert(sqlite_insert(_TABLE)),
    "postgresql": _upsert(postgresql_insert(_TABLE)),
}
"""Built once: the values travel as parameters, so every call reuses the compiled statement."""


def record_snapshot(session: Session, snapshot: Snapshot) -> None:
    """Insert the snapshot; a retried step keeps the first record and raises `attempt`.

    One INSERT ... ON CONFLICT statement, so a concurrent attempt of the same step cannot fail
    on the primary key.
    """
    if snapshot.recorded_at.tzinfo is None:
        raise InvalidRequestError("recorded_at", "must be timezone-aware")
    connection = session.connection()
    connection.execute(_UPSERT_BY_DIALECT[connection.dialect.name], _values(snapshot))


def snapshots(session: Session, saga_id: str) -> list[Snapshot]:
    rows = session.scalars(
        select(SagaSnapshot)
        .where(SagaSnapshot.saga_id == saga_id)
        .order_by(SagaSnapshot.step_index)
    )
    return [_snapshot(row) for row in rows]


def _values(snapshot: Snapshot) -> dict[str, object]:
    dumped = snapshot.model_dump(mode="json")
    return {
        "saga_id": snapshot.saga_id,
        "step_index": snapshot.step_index,
        "saga_type": snapshot.saga_type,
        "step_name": snapshot.step_name,
        "status": snapshot.status,
        "data": json.dumps(dumped["data"], sort_keys=True),
        "compensation_stack": json.dumps(dumped["compensation_stack"]),
        "attempt": snapshot.attempt,
        "recorded_at": snapshot.recorded_at,
        "forward_only": snapshot.forward_only,
        "inquiries": json.dumps(dumped["inquiries"]),
        "retry_specs": None if dumped["retry_specs"] is None else json.dumps(dumped["retry_specs"]),
    }


def _snapshot(row: SagaSnapshot) -> Snapshot:
    return Snapshot.model_validate(
        {
            "saga_id": row.saga_id,
            "step_index": row.step_index,
            "saga_type": row.saga_type,
            "step_name": row.step_name,
            "status": row.status,
            "data": json.loads(row.data),
            "compensation_stack": json.loads(row.compensation_stack),
            "attempt": row.attempt,
            "recorded_at": row.recorded_at,
            "forward_only": row.forward_only,
            "inquiries": json.loads(row.inquiries),
            "retry_specs": None if row.retry_specs is None else json.loads(row.retry_specs),
        }
    )
