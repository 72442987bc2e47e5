from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from sagas import (
    FAULTS_ENV_VAR,
    AccountClosedError,
    AccountFrozenError,
    BusinessError,
    ConnectionDroppedError,
    FaultKind,
    FaultRule,
    InvalidRequestError,
    Phase,
    StepTimeoutError,
    TransientError,
    parse_faults,
)
from sagas.registry import load_registry
from tests.escrow import EscrowAgentBusyError, EscrowDisputedError
from tests.unit._guard import RecordingSnapshotStore, at_attempt, run_guarded, transfer_call

GRAMMAR = "[SAGA_TYPE/]STEP[.PHASE]=KIND[(ERROR)][*TIMES][@ACCOUNT]"


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


@pytest.mark.parametrize(
    ("spec", "saga_type", "step", "error"),
    [
        ("escrow/hold=business", "escrow", "hold", None),
        (
            "fee-collection/charge=business(EscrowDisputedError)*1",
            "fee-collection",
            "charge",
            EscrowDisputedError,
        ),
        (
            "payout_v2.eu/pay=transient(EscrowAgentBusyError)",
            "payout_v2.eu",
            "pay",
            EscrowAgentBusyError,
        ),
        ("credit=transient(ConnectionDroppedError)", None, "credit", ConnectionDroppedError),
        ("credit=business(BusinessError)", None, "credit", BusinessError),
    ],
)
def test_a_rule_may_name_its_saga_type_and_error_class(
    spec: str, saga_type: str | None, step: str, error: type[Exception] | None
) -> None:
    (rule,) = parse_faults(spec).rules

    assert (rule.saga_type, rule.step, rule.error) == (saga_type, step, error)


def test_a_scoped_rule_with_every_part_parses() -> None:
    (rule,) = parse_faults("escrow/hold.compensation=business(AccountClosedError)*2@payer").rules

    assert rule == FaultRule(
        "hold", Phase.COMPENSATION, FaultKind.BUSINESS, 2, "payer", "escrow", AccountClosedError
    )


@pytest.mark.parametrize(
    ("spec", "error_class"),
    [
        ("credit=business", AccountFrozenError),
        ("credit=transient", TransientError),
        ("credit=timeout", StepTimeoutError),
        ("credit=business(EscrowDisputedError)", EscrowDisputedError),
    ],
)
def test_each_kind_keeps_its_default_error_class(spec: str, error_class: type[Exception]) -> None:
    assert parse_faults(spec).rules[0].error_class is error_class


@pytest.mark.parametrize(
    ("spec", "described"),
    [
        ("settle=transient@demo-erin", "settle.action=transient(TransientError)*always@demo-erin"),
        (
            "escrow/hold=business(EscrowDisputedError)*1",
            "escrow/hold.action=business(EscrowDisputedError)*1@any",
        ),
    ],
)
def test_the_worker_warning_shows_scope_and_class(spec: str, described: str) -> None:
    assert parse_faults(spec).rules[0].describe() == described


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
        ("/credit=business", "/credit=business"),
        ("escrow//hold=business", "escrow//hold=business"),
        ("pay out/credit=business", "pay out/credit=business"),
        ("credit=business()", "credit=business()"),
        ("credit=business(Frozen Error)", "credit=business(Frozen Error)"),
        ("credit=business*1(AccountFrozenError)", "credit=business*1(AccountFrozenError)"),
    ],
)
def test_a_malformed_rule_is_refused_naming_the_variable_and_the_rule(
    spec: str, bad_rule: str
) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        parse_faults(spec)

    assert caught.value.field == FAULTS_ENV_VAR == "FUNDSAGA_FAULTS"
    assert repr(bad_rule) in caught.value.problem
    assert GRAMMAR in caught.value.problem


@pytest.mark.parametrize(
    ("rule", "why"),
    [
        ("credit=business(NoSuchError)", "'NoSuchError' is not a known BusinessError subclass"),
        ("credit=business(ValueError)", "'ValueError' is not a known BusinessError subclass"),
        ("credit=business(StepTimeoutError)", "not a known BusinessError subclass"),
        ("credit=business(InvalidRequestError)", "not a known BusinessError subclass"),
        ("credit=transient(AccountFrozenError)", "not a known TransientError subclass"),
        ("escrow/hold=transient(EscrowDisputedError)", "not a known TransientError subclass"),
        ("credit=timeout(StepTimeoutError)", "timeout takes no error class"),
    ],
)
def test_an_unknown_or_wrong_error_class_is_refused_naming_the_variable_and_the_rule(
    rule: str, why: str
) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        parse_faults(f"credit=transient*1;{rule}")

    assert caught.value.field == "FUNDSAGA_FAULTS"
    assert repr(rule) in caught.value.problem
    assert why in caught.value.problem


def test_an_error_class_is_known_to_the_parser_once_its_module_defined_it() -> None:
    with pytest.raises(InvalidRequestError, match="FUNDSAGA_SAGA_MODULES"):
        parse_faults("charge=business(FeeWaivedLaterError)")

    class FeeWaivedLaterError(BusinessError):
        pass

    assert (
        parse_faults("charge=business(FeeWaivedLaterError)").rules[0].error is FeeWaivedLaterError
    )


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
        ("transfer/credit=business", True),
        ("escrow/credit=business", False),
        ("transfer.v2/credit=business", False),
        ("credit=business", True),
    ],
)
def test_a_scoped_fault_hits_only_its_saga_type(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore, spec: str, fires: bool
) -> None:
    effect, failure = run_step(activity_env, store, spec)

    assert (failure is not None) is fires
    assert effect.runs == (0 if fires else 1)


@pytest.mark.parametrize(
    ("spec", "error_type", "non_retryable"),
    [
        ("transfer/credit=business(EscrowDisputedError)", "EscrowDisputedError", True),
        ("credit=transient(EscrowAgentBusyError)*1", "EscrowAgentBusyError", False),
    ],
)
def test_a_fault_raises_its_chosen_error_class_classified_by_its_base(
    activity_env: ActivityEnvironment,
    store: RecordingSnapshotStore,
    spec: str,
    error_type: str,
    non_retryable: bool,
) -> None:
    effect, failure = run_step(activity_env, store, spec)

    assert effect.runs == 0
    assert failure is not None
    assert (failure.type, failure.non_retryable) == (error_type, non_retryable)


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


class FrozenByRegulatorError(BusinessError):
    """A saga type's own error whose constructor needs more than a message."""

    def __init__(self, message: str, regulator: str) -> None:
        super().__init__(f"{message} (by {regulator})")


def test_an_error_class_that_cannot_be_raised_with_a_message_is_refused_at_parse() -> None:
    with pytest.raises(InvalidRequestError, match="cannot be raised with a message alone") as err:
        parse_faults("escrow/hold=business(FrozenByRegulatorError)")

    assert err.value.field == FAULTS_ENV_VAR


def test_a_rule_that_matches_no_registered_step_is_named_at_worker_start() -> None:
    registry = load_registry(["tests.escrow"])

    assert registry.has_step("escrow", "hold")
    assert registry.has_step(None, "reserve")
    assert not registry.has_step("escrow", "reserve")
    assert not registry.has_step("fee-colection", "charge")
