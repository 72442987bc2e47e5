"""Operator tokens spent once, deployment-wide: the first use of an (issuer, jti) takes it, a
retry of the same activity is the same use, any other use is refused; and neither the worker's
role nor the owner's can forget a use (append-only, by privilege and by trigger)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError

from sagas.foundations import make_engine
from sagas.ledger import TokenSpend, spend_operator_token

FIRST = TokenSpend(
    issuer="https://idp.example",
    token_id="jti-1",
    subject="ana",
    workflow_id="transfer-K1",
    action="propose",
    used_by="run-1/7",
)


@pytest.fixture
def engine(database_url: str) -> Iterator[Engine]:
    engine = make_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def owner(database_owner_url: str) -> Iterator[Engine]:
    engine = make_engine(database_owner_url)
    yield engine
    engine.dispose()


def uses(engine: Engine) -> list[tuple[str, str, str]]:
    with engine.connect() as connection:
        found = connection.execute(
            text("SELECT token_id, workflow_id, used_by FROM operator_token_use")
        )
        return [tuple(row) for row in found]


def test_the_first_use_takes_the_token_and_its_retry_is_the_same_use(engine: Engine) -> None:
    assert spend_operator_token(engine, FIRST) is None
    assert spend_operator_token(engine, FIRST) is None  # the activity retried after committing

    assert uses(engine) == [("jti-1", "transfer-K1", "run-1/7")]


@pytest.mark.parametrize(
    "other",
    [
        {"workflow_id": "transfer-K2", "used_by": "run-2/7"},  # copied to another saga
        {"used_by": "run-1/9"},  # sent again to the same one
        {"used_by": "run-3/7"},  # a new run of the same workflow id
    ],
    ids=["another-saga", "same-saga-again", "new-run"],
)
def test_any_other_use_is_refused_with_the_earlier_one(
    engine: Engine, other: dict[str, str]
) -> None:
    spend_operator_token(engine, FIRST)

    assert spend_operator_token(engine, TokenSpend(**{**FIRST.__dict__, **other})) == FIRST
    assert uses(engine) == [("jti-1", "transfer-K1", "run-1/7")]


def test_the_same_jti_of_another_issuer_is_another_token(engine: Engine) -> None:
    spend_operator_token(engine, FIRST)
    elsewhere = TokenSpend(**{**FIRST.__dict__, "issuer": "https://other.example"})

    assert spend_operator_token(engine, elsewhere) is None


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE operator_token_use SET used_by = 'forged'",
        "DELETE FROM operator_token_use",
    ],
)
def test_a_use_cannot_be_forgotten(engine: Engine, owner: Engine, statement: str) -> None:
    spend_operator_token(engine, FIRST)

    for role in (engine, owner):  # the worker (privilege), the owner (trigger)
        with pytest.raises(DBAPIError), role.begin() as connection:
            connection.exec_driver_sql(statement)

    assert uses(engine) == [("jti-1", "transfer-K1", "run-1/7")]
