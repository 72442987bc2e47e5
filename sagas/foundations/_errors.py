"""The exception tree of fundsaga.

    FundsagaError
    ├── InvalidRequestError        bad input, names the field; nothing was written
    ├── IdempotencyConflictError   same idempotency key, different request
    ├── SagaNotFoundError          no saga for that key
    ├── NotParkedError             an operator action on a saga that is not waiting for one
    ├── OperatorRefusedError       an operator action without a valid proof of identity or role
    ├── ResolutionRefusedError     an approval the saga refuses (maker-checker)
    │   ├── ProposalStaleError         it names no open proposal, or the saga changed since
    │   └── SameOperatorError          the approver is the operator who proposed
    ├── RecoveryRefusedError       a recovery of a killed saga refused: not killed, or already
    │                              recovered or being recovered
    ├── RegistrationError          a saga type is declared inconsistently; the worker refuses it
    ├── SagaIdReusedError          non-retryable: another run chain took effects under this id
    ├── EffectCompensatedError     non-retryable: an action found its own effect compensated
    ├── BusinessError              non-retryable: the saga compensates at once
    │   ├── InsufficientFundsError
    │   ├── AccountFrozenError
    │   ├── AccountClosedError
    │   ├── CurrencyMismatchError
    │   ├── LimitExceededError
    │   └── UnknownAccountError
    └── TransientError             retried by the step's retry spec for its class (temporary)
        ├── StepTimeoutError           instant
        └── InfrastructureError        infrastructure: the saga waits it out, it never parks
            ├── ConnectionDroppedError
            ├── DeadlockError
            ├── SerializationFailureError
            ├── DatabaseBusyError
            └── LedgerUnavailableError     a client's checks before a start found no ledger;
                                           nothing started: start again with the same key

Across the Temporal boundary an error travels as an ApplicationError whose `type` is the
class name. Every subclass of FundsagaError, the engine's and those a saga type defines in its
own module, is known by that name once its class statement has run: `error_class_by_name` maps
a name back, and `non_retryable_error_types()` lists the names that retry policies refuse to
retry (every BusinessError subclass among them). `retry_class_of` says which retry class of a
step's spec an error is retried by: a TransientError subclass declares it as `retry_class`.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, ClassVar

from sagas.foundations._retry_class import RetryClass

_BY_NAME: dict[str, type[FundsagaError]] = {}
_NON_RETRYABLE_NAMES: dict[None, tuple[str, ...]] = {}
"""non_retryable_error_types()'s answer until the next class registers: every step's retry
policy asks for it."""


class FundsagaError(Exception):
    """Root of every error fundsaga raises on purpose.

    A subclass's name must be unique among them: failures carry only the name across Temporal.
    """

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _register(cls)


def _origin(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def _register(cls: type[FundsagaError]) -> None:
    """Know `cls` by its name. The same module and qualname again replaces it: a reload, or the
    workflow sandbox importing a saga module afresh for a run."""
    known = _BY_NAME.get(cls.__name__)
    if known is not None and _origin(known) != _origin(cls):
        raise RegistrationError(
            f"error class {_origin(cls)} has the name of {_origin(known)}: failures cross "
            f"Temporal by class name only, so give it another name"
        )
    _BY_NAME[cls.__name__] = cls
    _NON_RETRYABLE_NAMES.clear()


_register(FundsagaError)


class InvalidRequestError(FundsagaError, ValueError):
    """A request field is invalid; raised before anything is written."""

    def __init__(self, field: str, problem: str) -> None:
        super().__init__(f"{field}: {problem}")
        self.field = field
        self.problem = problem


class IdempotencyConflictError(FundsagaError):
    """The idempotency key is already used by a saga with a different request."""


class SagaNotFoundError(FundsagaError):
    """No saga exists for the given key."""


class NotParkedError(FundsagaError):
    """An operator action was sent to a saga that is not in NEEDS_ATTENTION."""


class OperatorRefusedError(FundsagaError):
    """An operator action without a valid proof of who sends it (an access token from the
    identity provider the worker trusts), or by an operator without the role; nothing changed."""


class ResolutionRefusedError(FundsagaError):
    """An approval of a resolution the saga refused; nothing changed."""


class ProposalStaleError(ResolutionRefusedError):
    """The approval names no open proposal: unknown, superseded, or the saga changed since."""


class SameOperatorError(ResolutionRefusedError):
    """The approver is the operator who proposed: a resolution needs two operators."""


class RecoveryRefusedError(FundsagaError):
    """A recovery of a killed saga refused: the saga is not killed, or its one recovery is
    already approved or done; nothing changed."""


class RegistrationError(FundsagaError):
    """A saga type is declared inconsistently (an unknown activity, a duplicate name)."""


class SagaIdReusedError(FundsagaError):
    """Another run chain already took effects under this saga id: this run must take none."""

    def __init__(self, saga_id: str, claimed_by: str) -> None:
        super().__init__(
            f"saga id {saga_id} is claimed by the run chain {claimed_by}: this run takes no effect"
        )
        self.claimed_by = claimed_by


class EffectCompensatedError(FundsagaError):
    """An action found its own effect key already compensated (voided, reversed, tombstoned):
    returning the old result would report an undone effect as done."""


class BusinessError(FundsagaError):
    """A rule of the business refused the step; retrying cannot help."""

    def __init__(self, *args: object, account_id: str | None = None) -> None:
        super().__init__(*args)
        self.account_id = account_id
        """The account refused, when the refusal is about one: the step names its field."""


class InsufficientFundsError(BusinessError):
    """The account's available balance (plus overdraft) does not cover the amount."""


class AccountFrozenError(BusinessError):
    """The account is frozen and takes no new movements."""


class AccountClosedError(BusinessError):
    """The account is closed."""


class CurrencyMismatchError(BusinessError):
    """The amount's currency differs from the account's."""


class LimitExceededError(BusinessError):
    """A configured limit refuses the amount."""


class UnknownAccountError(BusinessError):
    """No account has that id."""


class TransientError(FundsagaError):
    """A fault that may pass: the step is retried by its retry spec for `retry_class`."""

    retry_class: ClassVar[RetryClass] = RetryClass.TEMPORARY

    def __init__(self, *args: object, retry_after: timedelta | None = None) -> None:
        super().__init__(*args)
        self.retry_after = retry_after
        """A counterparty's Retry-After: the next attempt waits at least this long."""


class StepTimeoutError(TransientError):
    """The step did not answer in time; its effect may or may not have committed."""

    retry_class = RetryClass.INSTANT


class InfrastructureError(TransientError):
    """A fault of fundsaga's own infrastructure (the ledger's database, the audit store,
    Temporal as seen from an activity), not of the business: a step waits it out until the
    saga's deadline, a compensation without limit; neither parks for it."""

    retry_class = RetryClass.INFRASTRUCTURE


class ConnectionDroppedError(InfrastructureError):
    """The connection to the database dropped, or it refused one (down, restarting)."""


class DeadlockError(InfrastructureError):
    """The database chose this transaction as a deadlock victim."""


class SerializationFailureError(InfrastructureError):
    """The database could not serialize this transaction with a concurrent one."""


class DatabaseBusyError(InfrastructureError):
    """The database was locked or busy."""


class LedgerUnavailableError(InfrastructureError):
    """A client could not check a request's accounts: the ledger's database was unreachable,
    restarting, busy or dropped the connection. Nothing started; starting again with the same
    idempotency key and request is safe once the ledger answers."""


BUSINESS_ERRORS: tuple[type[BusinessError], ...] = (
    InsufficientFundsError,
    AccountFrozenError,
    AccountClosedError,
    CurrencyMismatchError,
    LimitExceededError,
    UnknownAccountError,
)
TRANSIENT_ERRORS: tuple[type[TransientError], ...] = (
    StepTimeoutError,
    InfrastructureError,
    ConnectionDroppedError,
    DeadlockError,
    SerializationFailureError,
    DatabaseBusyError,
    LedgerUnavailableError,
)

_NON_RETRYABLE: tuple[type[FundsagaError], ...] = (
    BusinessError,
    InvalidRequestError,
    SagaIdReusedError,
    EffectCompensatedError,
)


def error_class_by_name(name: str) -> type[FundsagaError] | None:
    """The FundsagaError subclass a failure's `type` names, if one with that name is defined."""
    return _BY_NAME.get(name)


def non_retryable_error_types() -> tuple[str, ...]:
    """The names of every non-retryable error class defined so far, sorted."""
    names = _NON_RETRYABLE_NAMES.get(None)
    if names is None:
        names = tuple(
            sorted(name for name, cls in _BY_NAME.items() if issubclass(cls, _NON_RETRYABLE))
        )
        _NON_RETRYABLE_NAMES[None] = names
    return names


def is_non_retryable(error: FundsagaError) -> bool:
    return isinstance(error, _NON_RETRYABLE)


def retry_class_of(error: BaseException) -> RetryClass:
    """Which class of a step's retry spec retries `error`; an unknown error is temporary."""
    if isinstance(error, FundsagaError) and is_non_retryable(error):
        return RetryClass.PERMANENT
    if isinstance(error, TransientError):
        return error.retry_class
    return RetryClass.TEMPORARY


def is_business_error_type(name: str) -> bool:
    """Whether a failure of this type stops the saga at once instead of being retried."""
    cls = error_class_by_name(name)
    return cls is not None and issubclass(cls, _NON_RETRYABLE)
