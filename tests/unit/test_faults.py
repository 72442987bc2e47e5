from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from sagas import FAULTS_ENV_VAR, FaultKind, FaultRule, InvalidRequestError, Phase, parse_faults
from tests.unit._guard import RecordingSnapshotStore, at_attempt, run_guarded, transfer_call


class Effect:
    """The body of a step: counts how often its effect ran."""

    def __init__(self) -> None:
        self.runs = 0

    def __call__(self) -> None:
        self.runs += 1


def run_step(
    env: ActivityEnvironment,
    store: RecordingSnapshotStore,
    spec: str,
    *,
    step: str = "credit",
    phase: str = "action",
    attempt: int = 1,
    destination: str = "acc-b",
) -> tuple[Effect, ApplicationError | None]:
    """Run one attempt of a step under the faults of `spec`: did the effect run, what failed."""
    effect = Effect()
    call = transfer_call(step, phase, destination=destination)
    try:
        run_guarded(at_attempt(env, attempt), call, store, parse_faults(spec), effect)
    except ApplicationError as err:
        return effect, err
    return effect, None


def test_the_documented_example_parses() -> None:
    plan = parse_faults("credit=transient*3;settle.compensation=timeout@acc-b")

    assert plan.rules == (
        FaultRule("credit", Phase.ACTION, FaultKind.TRANSIENT, 3, None),
        FaultRule("settle", Phase.COMPENSATION, FaultKind.TIMEOUT, None, "acc-b"),
    )


@pytest.mark.parametrize(
    ("spec", "rule"),
    [
        ("reserve=business", FaultRule("reserve", Phase.ACTION, FaultKind.BUSINESS, None, None)),
        (
            " credit.action=timeout*1 ; ",
            FaultRule("credit", Phase.ACTION, FaultKind.TIMEOUT, 1, None),
        ),
        (
            "capture=transient@@clearing:EUR",
            FaultRule("capture", Phase.ACTION, FaultKind.TRANSIENT, None, "@clearing:EUR"),
        ),
    ],
)
def test_a_single_rule_parses(spec: str, rule: FaultRule) -> None:
    assert parse_faults(spec).rules == (rule,)


@pytest.mark.parametrize("spec", ["", " ", ";;"])
def test_an_empty_spec_injects_nothing(spec: str) -> None:
    assert not parse_faults(spec)


@pytest.mark.parametrize(
    ("spec", "bad_rule"),
    [
        ("credit", "credit"),
        ("credit=", "credit="),
        ("=business", "=business"),
        ("credit=explode", "credit=explode"),
        ("credit=BUSINESS", "credit=BUSINESS"),
        ("credit.undo=business", "credit.undo=business"),
        ("credit=transient*0", "credit=transient*0"),
        ("credit=transient*x", "credit=transient*x"),
        ("credit=transient*3*4", "credit=transient*3*4"),
        ("credit=business@", "credit=business@"),
        ("credit = business", "credit = business"),
        ("credit=business;oops", "oops"),
    ],
)
def test_a_malformed_rule_is_refused_naming_the_variable_and_the_rule(
    spec: str, bad_rule: str
) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        parse_faults(spec)

    assert caught.value.field == FAULTS_ENV_VAR == "FUNDSAGA_FAULTS"
    assert repr(bad_rule) in caught.value.problem
    assert "STEP[.PHASE]=KIND[*TIMES][@ACCOUNT]" in caught.value.problem


def test_a_business_fault_refuses_before_the_effect_after_the_snapshot(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore
) -> None:
    effect, failure = run_step(activity_env, store, "credit=business", attempt=1)

    assert effect.runs == 0
    assert failure is not None
    assert failure.non_retryable is True
    assert failure.type == "AccountFrozenError"
    assert [s.step_name for s in store.snapshots] == ["credit"]


@pytest.mark.parametrize(("attempt", "fails"), [(1, True), (2, True), (3, True), (4, False)])
def test_a_transient_fault_fails_only_the_first_times_attempts_before_the_effect(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore, attempt: int, fails: bool
) -> None:
    effect, failure = run_step(activity_env, store, "credit=transient*3", attempt=attempt)

    assert effect.runs == (0 if fails else 1)
    assert (failure is not None) is fails
    if failure is not None:
        assert failure.non_retryable is False
        assert failure.details == ({"attempt": attempt},)


def test_a_transient_fault_without_times_fails_every_attempt(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore
) -> None:
    effect, failure = run_step(activity_env, store, "credit=transient", attempt=50)

    assert effect.runs == 0
    assert failure is not None
    assert failure.non_retryable is False


def test_a_timeout_fault_fails_the_attempt_after_its_effect_ran(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore
) -> None:
    effect, failure = run_step(activity_env, store, "credit=timeout")

    assert effect.runs == 1
    assert failure is not None
    assert failure.type == "StepTimeoutError"
    assert failure.non_retryable is False


def test_a_timeout_fault_with_times_lets_later_attempts_through(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore
) -> None:
    effect, failure = run_step(activity_env, store, "credit=timeout*1", attempt=2)

    assert (effect.runs, failure) == (1, None)


@pytest.mark.parametrize(
    ("spec", "fires"),
    [
        ("credit=business@acc-b", True),
        ("credit=business@acc-a", True),
        ("credit=business@acc-z", False),
    ],
)
def test_an_account_filter_limits_the_fault_to_sagas_touching_it(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore, spec: str, fires: bool
) -> None:
    effect, failure = run_step(activity_env, store, spec)

    assert (failure is not None) is fires
    assert effect.runs == (0 if fires else 1)


@pytest.mark.parametrize(
    ("spec", "step", "phase", "fires"),
    [
        ("settle.compensation=timeout", "settle", "compensation", True),
        ("settle.compensation=timeout", "settle", "action", False),
        ("credit=business", "credit", "compensation", False),
        ("credit=business", "capture", "action", False),
    ],
)
def test_a_fault_hits_only_its_step_and_phase(
    activity_env: ActivityEnvironment,
    store: RecordingSnapshotStore,
    spec: str,
    step: str,
    phase: str,
    fires: bool,
) -> None:
    _, failure = run_step(activity_env, store, spec, step=step, phase=phase)

    assert (failure is not None) is fires
