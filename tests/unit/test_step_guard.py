from __future__ import annotations

from temporalio.testing import ActivityEnvironment

from sagas import FaultPlan
from tests.unit._guard import RecordingSnapshotStore, at_attempt, run_guarded, transfer_call


def test_the_snapshot_is_recorded_before_the_effect_with_the_attempt(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore
) -> None:
    call = transfer_call("capture")
    seen_by_effect: list[int] = []

    run_guarded(
        at_attempt(activity_env, 3),
        call,
        store,
        FaultPlan(),
        lambda: seen_by_effect.append(len(store.snapshots)),
    )

    assert seen_by_effect == [1]
    assert call.snapshot is not None
    assert store.snapshots == [call.snapshot.model_copy(update={"attempt": 3})]


def test_a_call_without_a_snapshot_records_nothing(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore
) -> None:
    call = transfer_call("capture", "compensation").model_copy(update={"snapshot": None})
    runs: list[None] = []

    run_guarded(activity_env, call, store, FaultPlan(), lambda: runs.append(None))

    assert runs == [None]
    assert store.snapshots == []


def test_a_ledger_step_hands_its_snapshot_to_the_effects_transaction(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore
) -> None:
    call = transfer_call("capture")
    seen_by_effect: list[tuple[int, int]] = []

    run_guarded(
        at_attempt(activity_env, 2),
        call,
        store,
        FaultPlan(),
        lambda: seen_by_effect.append((len(store.pending), len(store.snapshots))),
        same_transaction=True,
    )

    assert seen_by_effect == [(1, 0)]
    assert call.snapshot is not None
    assert store.snapshots == [call.snapshot.model_copy(update={"attempt": 2})]
