"""The launch fence: one claim per saga id, naming the run chain that may take its effects."""

from __future__ import annotations

from datetime import datetime
from typing import cast

from sqlalchemy import Table, bindparam, select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from sagas.engine import RunClaim
from sagas.foundations import SagaIdReusedError
from sagas.ledger._clock import transaction_now
from sagas.ledger._models import SagaClaim

_TABLE = cast(Table, SagaClaim.__table__)
_INSERT_BY_DIALECT = {
    "sqlite": sqlite_insert(_TABLE).on_conflict_do_nothing(index_elements=[_TABLE.c.saga_id]),
    "postgresql": postgresql_insert(_TABLE).on_conflict_do_nothing(
        index_elements=[_TABLE.c.saga_id]
    ),
}
_CLAIM_OF = select(SagaClaim.run_chain).where(SagaClaim.saga_id == bindparam("saga_id"))


def claim(session: Session, wanted: RunClaim) -> None:
    """Claim the saga id for the run chain, or find it claimed by the same chain.

    Raises SagaIdReusedError when another chain holds it; the caller's transaction then rolls
    back, so the refused run writes nothing.
    """
    connection = session.connection()
    connection.execute(
        _INSERT_BY_DIALECT[connection.dialect.name],
        {
            "saga_id": wanted.saga_id,
            "run_chain": wanted.run_chain,
            "saga_type": wanted.saga_type,
            "claimed_at": transaction_now(session),
        },
    )
    holder = claim_of(session, wanted.saga_id)
    if holder != wanted.run_chain:
        raise SagaIdReusedError(wanted.saga_id, holder or "unknown")


def claim_of(session: Session, saga_id: str) -> str | None:
    """The run chain holding the saga id, if any."""
    holder: str | None = session.scalar(_CLAIM_OF, {"saga_id": saga_id})
    return holder


def claims_between(
    session: Session, since: datetime, until: datetime, limit: int
) -> list[RunClaim]:
    """The claims made in [since, until), newest first, at most `limit`."""
    rows = session.execute(
        select(SagaClaim.saga_id, SagaClaim.saga_type, SagaClaim.run_chain)
        .where(SagaClaim.claimed_at >= since, SagaClaim.claimed_at < until)
        .order_by(SagaClaim.claimed_at.desc())
        .limit(limit)
    )
    return [RunClaim(saga_id=row[0], saga_type=row[1], run_chain=row[2]) for row in rows]
