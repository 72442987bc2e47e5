"""A quote is judged in workflow time: the time the saga scheduled the step, which every worker
reads alike. A worker whose own clock is an hour ahead of it neither expires a valid quote nor
stretches an expired one."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.fx import FxActivities
from sagas.engine import FaultPlan, Phase
from sagas.fx import DEFAULT_QUOTE_TTL, FX_TRANSFER_SAGA, FxCall, FxState, QuoteExpiredError
from sagas.ledger import Ledger
from sagas.testing import sqlite_ledger
from tests.fx.scenario import fund, fx_request

SAGA_TIME = datetime.now(UTC) - timedelta(hours=1)
"""The saga's (Temporal's) time: this host's clock reads an hour later."""


@pytest.fixture
def activities(tmp_path: Path) -> FxActivities:
    ledger = sqlite_ledger(tmp_path)
    fund(ledger)
    return FxActivities(ledger, FaultPlan())


def call(step_name: str, state: FxState, scheduled_at: datetime) -> FxCall:
    step_index = [step.name for step in FX_TRANSFER_SAGA.steps].index(step_name)
    return FX_TRANSFER_SAGA.call_type(
        saga_id="fx-transfer-fx-1",
        saga_type=FX_TRANSFER_SAGA.saga_type,
        step_index=step_index,
        step_name=step_name,
        phase=Phase.ACTION,
        run_chain="run-chain-1",
        request=fx_request("fx-1"),
        state=state,
        scheduled_at=scheduled_at,
    )


def quoted(activities: FxActivities) -> FxState:
    state = ActivityEnvironment().run(activities.quote, call("quote", FxState(), SAGA_TIME))
    assert isinstance(state, FxState)
    return state


def held(ledger: Ledger) -> list[str]:
    return [hold.hold_key for hold in ledger.holds()]


def test_the_quote_expires_its_time_to_live_after_the_saga_asked(
    activities: FxActivities,
) -> None:
    assert quoted(activities).quote_expires_at == SAGA_TIME + DEFAULT_QUOTE_TTL


def test_a_quote_still_valid_in_workflow_time_is_honoured_whatever_this_hosts_clock(
    activities: FxActivities,
) -> None:
    state = quoted(activities)
    reserve = call("reserve", state, SAGA_TIME + DEFAULT_QUOTE_TTL - timedelta(seconds=1))

    reserved = ActivityEnvironment().run(activities.reserve, reserve)

    assert isinstance(reserved, FxState)
    assert held(activities.ledger) == [reserved.hold_key]


def test_a_quote_expired_in_workflow_time_moves_nothing(activities: FxActivities) -> None:
    state = quoted(activities)
    reserve = call("reserve", state, SAGA_TIME + DEFAULT_QUOTE_TTL)

    with pytest.raises(ApplicationError) as refused:
        ActivityEnvironment().run(activities.reserve, reserve)

    assert (refused.value.type, refused.value.non_retryable) == (QuoteExpiredError.__name__, True)
    assert held(activities.ledger) == []
