from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta, timezone

import pytest
from sqlalchemy import event

from sagas import (
    CompensationEntry,
    InsufficientFundsError,
    InvalidRequestError,
    SagaStatus,
    Snapshot,
    TransientError,
)
from sagas.engine import RunClaim, code_specs
from sagas.ledger import Ledger
from sagas.transfer import TRANSFER_SAGA
from tests.ledger._money import eur

RECORDED = datetime(2026, 11, 21, 12, 30, 15, 123456, tzinfo=UTC)


CLAIM = RunClaim(saga_id="transfer-abc", saga_type="transfer", run_chain="chain-1")


def snapshot(step_index: int, *, attempt: int = 1, **changes: object) -> Snapshot:
    fields: dict[str, object] = {
        "saga_id": "transfer-abc",
        "saga_type": "transfer",
        "step_index": step_index,
        "step_name": f"step-{step_index}",
        "status": SagaStatus.RUNNING,
        "data": {"amount": "12.34", "nested": {"ids": [1, 2]}, "none": None},
        "compensation_stack": [
            CompensationEntry(step_index=i, step_name=f"step-{i}", compensation=f"undo-{i}")
            for i in range(step_index + 1)
        ],
        "attempt": attempt,
        "recorded_at": RECORDED + timedelta(seconds=step_index),
    }
    return Snapshot.model_validate({**fields, **changes})


def test_snapshots_read_back_ordered_by_step(ledger: Ledger) -> None:
    for index in (2, 0, 1):
        ledger.record_snapshot(snapshot(index))
    ledger.record_snapshot(snapshot(0).model_copy(update={"saga_id": "other"}))

    assert ledger.snapshots("transfer-abc") == [snapshot(0), snapshot(1), snapshot(2)]
    assert ledger.snapshots("nobody") == []


def test_recording_again_keeps_the_first_record_and_raises_the_attempt(ledger: Ledger) -> None:
    ledger.record_snapshot(snapshot(0, attempt=2))

    ledger.record_snapshot(snapshot(0, attempt=3, data={"changed": True}))
    ledger.record_snapshot(snapshot(0, attempt=1))

    assert ledger.snapshots("transfer-abc") == [snapshot(0, attempt=3)]


def test_timestamps_come_back_in_utc(ledger: Ledger) -> None:
    local = RECORDED.astimezone(timezone(timedelta(hours=5)))
    ledger.record_snapshot(snapshot(0, recorded_at=local))

    [stored] = ledger.snapshots("transfer-abc")

    assert stored.recorded_at == RECORDED
    assert stored.recorded_at.utcoffset() == timedelta(0)


def test_naive_timestamps_are_refused(ledger: Ledger) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        ledger.record_snapshot(snapshot(0, recorded_at=datetime(2026, 1, 1)))

    assert raised.value.field == "recorded_at"


@contextmanager
def commits_counted(ledger: Ledger) -> Iterator[list[int]]:
    count = [0]

    def on_commit(_connection: object) -> None:
        count[0] += 1

    event.listen(ledger.engine, "commit", on_commit)
    try:
        yield count
    finally:
        event.remove(ledger.engine, "commit", on_commit)


def test_a_step_snapshot_commits_in_the_effects_own_transaction(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000))

    with commits_counted(ledger) as commits, ledger.begin_step_in_effect(CLAIM, snapshot(0)):
        ledger.place_hold("transfer-abc:reserve:action", "alice", eur(100), saga_id="transfer-abc")

    assert commits == [1]
    assert ledger.snapshots("transfer-abc") == [snapshot(0)]
    assert [hold.amount for hold in ledger.holds(saga_id="transfer-abc")] == [eur(100)]


def test_a_refused_effect_still_leaves_its_snapshot_and_nothing_else(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(50))

    with pytest.raises(InsufficientFundsError), ledger.begin_step_in_effect(CLAIM, snapshot(0)):
        ledger.place_hold("transfer-abc:reserve:action", "alice", eur(100), saga_id="transfer-abc")

    assert ledger.snapshots("transfer-abc") == [snapshot(0)]
    assert ledger.holds(saga_id="transfer-abc") == []


def test_a_step_that_fails_before_writing_still_leaves_its_snapshot(ledger: Ledger) -> None:
    with pytest.raises(TransientError), ledger.begin_step_in_effect(CLAIM, snapshot(1, attempt=2)):
        raise TransientError("the bank timed out")

    assert ledger.snapshots("transfer-abc") == [snapshot(1, attempt=2)]


def test_only_the_first_transaction_of_the_step_carries_the_snapshot(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000))

    with commits_counted(ledger) as commits, ledger.begin_step_in_effect(CLAIM, snapshot(0)):
        ledger.account("alice")
        ledger.place_hold("transfer-abc:reserve:action", "alice", eur(100), saga_id="transfer-abc")
    ledger.place_hold("transfer-abc:other:action", "alice", eur(1), saga_id="transfer-abc")

    assert commits == [2]
    assert ledger.snapshots("transfer-abc") == [snapshot(0)]


def test_a_first_snapshot_keeps_the_retry_specs_the_saga_runs_with(ledger: Ledger) -> None:
    first = snapshot(0, retry_specs=code_specs(TRANSFER_SAGA))
    ledger.record_snapshot(first)
    ledger.record_snapshot(snapshot(1))

    assert ledger.snapshots("transfer-abc") == [first, snapshot(1)]
    assert ledger.snapshots("transfer-abc")[0].model_dump_json() == first.model_dump_json()
