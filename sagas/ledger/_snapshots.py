"""The engine's before-step snapshots, one row per (saga, step)."""

from __future__ import annotations

import json

from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas._errors import InvalidRequestError
from sagas._snapshot import Snapshot
from sagas.ledger._models import SagaSnapshot


def record_snapshot(session: Session, snapshot: Snapshot) -> None:
    """Insert the snapshot; a retried step keeps the first record and raises `attempt`."""
    if snapshot.recorded_at.tzinfo is None:
        raise InvalidRequestError("recorded_at", "must be timezone-aware")
    row = session.scalars(
        select(SagaSnapshot)
        .where(
            SagaSnapshot.saga_id == snapshot.saga_id,
            SagaSnapshot.step_index == snapshot.step_index,
        )
        .with_for_update()
    ).one_or_none()
    if row is None:
        session.add(_row(snapshot))
    else:
        row.attempt = max(row.attempt, snapshot.attempt)
    session.flush()


def snapshots(session: Session, saga_id: str) -> list[Snapshot]:
    rows = session.scalars(
        select(SagaSnapshot)
        .where(SagaSnapshot.saga_id == saga_id)
        .order_by(SagaSnapshot.step_index)
    )
    return [_snapshot(row) for row in rows]


def _row(snapshot: Snapshot) -> SagaSnapshot:
    dumped = snapshot.model_dump(mode="json")
    return SagaSnapshot(
        saga_id=snapshot.saga_id,
        step_index=snapshot.step_index,
        saga_type=snapshot.saga_type,
        step_name=snapshot.step_name,
        status=snapshot.status,
        data=json.dumps(dumped["data"], sort_keys=True),
        compensation_stack=json.dumps(dumped["compensation_stack"]),
        attempt=snapshot.attempt,
        recorded_at=snapshot.recorded_at,
    )


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
