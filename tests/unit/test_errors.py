from __future__ import annotations

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from sagas import FaultPlan, error_class_by_name, non_retryable_error_types
from sagas.foundations import (
    BUSINESS_ERRORS,
    TRANSIENT_ERRORS,
    BusinessError,
    FundsagaError,
    InvalidRequestError,
    RegistrationError,
    TransientError,
    is_business_error_type,
)
from tests.unit._guard import RecordingSnapshotStore, at_attempt, run_guarded, transfer_call

NON_RETRYABLE: tuple[type[FundsagaError], ...] = (BusinessError, *BUSINESS_ERRORS)
RETRYABLE: tuple[type[FundsagaError], ...] = (TransientError, *TRANSIENT_ERRORS)


class FeeWaivedError(BusinessError):
    """A saga type's own business rule, defined outside the engine."""


class ProviderBusyError(TransientError):
    """A saga type's own transient fault."""


class ProviderGlitchError(FundsagaError):
    """A saga type's own error of neither branch."""


def _tree(root: type[FundsagaError]) -> list[type[FundsagaError]]:
    return [root, *(cls for sub in root.__subclasses__() for cls in _tree(sub))]


def _built_in(root: type[FundsagaError]) -> set[type[FundsagaError]]:
    return {cls for cls in _tree(root) if cls.__module__ == FundsagaError.__module__}


ALL_ERRORS = sorted(_built_in(FundsagaError), key=lambda cls: cls.__name__)


def _raise(err: BaseException) -> None:
    raise err


def test_every_built_in_business_error_class_is_listed() -> None:
    assert _built_in(BusinessError) == set(NON_RETRYABLE)


def test_every_built_in_transient_error_class_is_listed() -> None:
    assert _built_in(TransientError) == set(RETRYABLE)


@pytest.mark.parametrize(
    "cls", [*NON_RETRYABLE, InvalidRequestError, FeeWaivedError], ids=lambda c: c.__name__
)
def test_business_errors_and_bad_requests_are_not_retried(cls: type[FundsagaError]) -> None:
    assert cls.__name__ in non_retryable_error_types()
    assert is_business_error_type(cls.__name__)


@pytest.mark.parametrize(
    "cls", [*RETRYABLE, ProviderBusyError, ProviderGlitchError], ids=lambda c: c.__name__
)
def test_transient_and_other_errors_are_retried(cls: type[FundsagaError]) -> None:
    assert cls.__name__ not in non_retryable_error_types()
    assert not is_business_error_type(cls.__name__)


@pytest.mark.parametrize(
    "cls", [FeeWaivedError, ProviderBusyError, ProviderGlitchError], ids=lambda c: c.__name__
)
def test_a_saga_types_own_error_class_is_found_by_name_once_defined(
    cls: type[FundsagaError],
) -> None:
    assert error_class_by_name(cls.__name__) is cls


def test_an_error_class_defined_later_is_known_to_the_next_retry_policy() -> None:
    before = non_retryable_error_types()

    class LateRefusalError(BusinessError):
        pass

    assert "LateRefusalError" not in before
    assert "LateRefusalError" in non_retryable_error_types()
    assert error_class_by_name("LateRefusalError") is LateRefusalError


def test_a_second_class_with_a_known_name_is_refused_when_it_is_defined() -> None:
    with pytest.raises(RegistrationError, match=r"tests\.unit\.test_errors\.FeeWaivedError"):

        class FeeWaivedError(BusinessError):
            pass

    assert error_class_by_name("FeeWaivedError") is globals()["FeeWaivedError"]


def test_a_built_in_name_cannot_be_taken_by_a_saga_type() -> None:
    with pytest.raises(RegistrationError, match="AccountFrozenError"):

        class AccountFrozenError(TransientError):
            pass

    assert error_class_by_name("AccountFrozenError") in NON_RETRYABLE


def test_defining_the_same_class_again_replaces_it() -> None:
    def define() -> type[FundsagaError]:
        class RedefinedRefusalError(BusinessError):
            pass

        return RedefinedRefusalError

    first, second = define(), define()

    assert first is not second
    assert error_class_by_name("RedefinedRefusalError") is second


@pytest.mark.parametrize("cls", ALL_ERRORS, ids=lambda c: c.__name__)
def test_error_class_by_name_maps_every_class_back(cls: type[FundsagaError]) -> None:
    assert error_class_by_name(cls.__name__) is cls


@pytest.mark.parametrize("name", ["RuntimeError", "ValueError", "", "businesserror"])
def test_a_name_outside_the_tree_maps_to_nothing(name: str) -> None:
    assert error_class_by_name(name) is None
    assert not is_business_error_type(name)


def _guarded_failure(
    env: ActivityEnvironment, store: RecordingSnapshotStore, err: Exception
) -> Exception:
    """What leaves the activity when the step's effect raises `err`."""
    try:
        run_guarded(env, transfer_call(), store, FaultPlan(), lambda: _raise(err))
    except Exception as failure:
        return failure
    pytest.fail("the guarded step did not fail")


@pytest.mark.parametrize(
    "err",
    [
        *(cls("refused") for cls in NON_RETRYABLE),
        InvalidRequestError("amount", "must be greater than zero"),
    ],
    ids=lambda e: type(e).__name__,
)
def test_a_business_error_leaves_the_activity_as_non_retryable(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore, err: FundsagaError
) -> None:
    failure = _guarded_failure(at_attempt(activity_env, 2), store, err)

    assert isinstance(failure, ApplicationError)
    assert failure.type == type(err).__name__
    assert failure.non_retryable is True
    assert failure.message == str(err)
    assert failure.details == ({"attempt": 2},)
    assert failure.__cause__ is err


@pytest.mark.parametrize("cls", RETRYABLE, ids=lambda c: c.__name__)
def test_a_transient_error_leaves_the_activity_as_retryable(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore, cls: type[FundsagaError]
) -> None:
    err = cls("try again")

    failure = _guarded_failure(activity_env, store, err)

    assert isinstance(failure, ApplicationError)
    assert failure.type == cls.__name__
    assert failure.non_retryable is False
    assert failure.__cause__ is err


@pytest.mark.parametrize(
    "err", [RuntimeError("boom"), KeyError("k"), OSError("disk")], ids=lambda e: type(e).__name__
)
def test_an_unknown_error_passes_through_unchanged(
    activity_env: ActivityEnvironment, store: RecordingSnapshotStore, err: Exception
) -> None:
    assert _guarded_failure(activity_env, store, err) is err
