"""The engine's before-step snapshots, one row per (saga, step)."""

from __future__ import annotations

import json

from sqlalchemy import case, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from sagas._errors import InvalidRequestError
from sagas._snapshot import Snapshot
from sagas.ledger._models import SagaSnapshot


def record_snapshot(session: Session, snapshot: Snapshot) -> None:
    """Insert the snapshot; a retried step keeps the first record and raises `attempt`.

    One INSERT ... ON CONFLICT statement, so a concurrent attempt of the same step cannot fail
    on the primary key.
    """
    if snapshot.recorded_at.tzinfo is None:
        raise InvalidRequestError("recorded_at", "must be timezone-aware")
    dialect = session.get_bind().dialect.name
    insert = sqlite_insert if dialect == "sqlite" else postgresql_insert
    statement = insert(SagaSnapshot).values(_values(snapshot))
    raised = case(
        (statement.excluded.attempt > SagaSnapshot.attempt, statement.excluded.attempt),
        else_=SagaSnapshot.attempt,
    )
    session.execute(
        statement.on_conflict_do_update(
            index_elements=[SagaSnapshot.saga_id, SagaSnapshot.step_index],
            set_={"attempt": raised},
        )
    )


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
        }
    )
