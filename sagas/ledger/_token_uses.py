"""Operator tokens spent on actions: each (issuer, jti) once, whichever worker or workflow."""

from __future__ import annotations

from dataclasses import asdict, dataclass

from sqlalchemy import Engine, insert, select
from sqlalchemy.exc import IntegrityError

from sagas.ledger._models import OperatorTokenUse


@dataclass(frozen=True)
class TokenSpend:
    """One use of an operator token: on what, by whom, and which activity attempt spent it."""

    issuer: str
    token_id: str
    subject: str
    workflow_id: str
    action: str
    used_by: str
    """The workflow run and activity: a retried activity is the same use, not a second one."""


def spend_operator_token(engine: Engine, spend: TokenSpend) -> TokenSpend | None:
    """Record `spend`; None when it is recorded (now, or by an earlier attempt of the same use),
    else the earlier use that already took the token."""
    try:
        with engine.begin() as connection:
            connection.execute(insert(OperatorTokenUse).values(**asdict(spend)))
        return None
    except IntegrityError:
        pass
    with engine.connect() as connection:
        row = connection.execute(
            select(OperatorTokenUse).where(
                OperatorTokenUse.issuer == spend.issuer,
                OperatorTokenUse.token_id == spend.token_id,
            )
        ).one()
    earlier = TokenSpend(
        issuer=row.issuer,
        token_id=row.token_id,
        subject=row.subject,
        workflow_id=row.workflow_id,
        action=row.action,
        used_by=row.used_by,
    )
    return None if earlier == spend else earlier
