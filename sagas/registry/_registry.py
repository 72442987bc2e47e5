"""The saga registry: every saga type a worker runs and a client starts, declared once.

A saga type is its definition, its workflow class per step mode and the factory of its
activities. The built-in types (transfer, fee collection, FX transfer, external payout, payout
batch, end-of-day sweep) are registered here; teams add theirs from their own modules
(`FUNDSAGA_SAGA_MODULES`) or an entry-point group (`fundsaga.saga_types`), each a module-level
`SAGA_TYPES` sequence or a `SagaType`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any

from pydantic import ValidationError
from temporalio import activity, workflow

from activities.fees import FeeActivities
from activities.fx import FxActivities
from activities.payouts import PayoutActivities
from activities.sweep import SweepActivities
from activities.transfer import TransferActivities
from sagas.engine import FaultPlan, SagaDefinition, SagaRequest, asking_first
from sagas.fees import FEE_COLLECTION_SAGA, FEE_ENTRY, FEE_INCOME, TAX_PAYABLE
from sagas.foundations import (
    InvalidRequestError,
    RegistrationError,
    invalid_request_from,
    load_settings,
)
from sagas.fx import FX_ENTRY, FX_POSITION, FX_TRANSFER_SAGA
from sagas.ledger import Ledger
from sagas.payouts import (
    EXTERNAL_PAYOUT_SAGA,
    PAYOUT_BATCH_DEFINITION,
    PAYOUT_CLEARING,
    PAYOUT_ENTRY,
)
from sagas.sweep import EOD_SWEEP_SAGA, SWEEP_ENTRY
from sagas.transfer import TRANSFER_SAGA
from workflows import (
    EodSweepWorkflow,
    ExternalPayoutWorkflow,
    FeeCollectionWorkflow,
    FxTransferWorkflow,
    PayoutBatchWorkflow,
    TransferLocalStepsWorkflow,
    TransferWorkflow,
)

ENTRY_POINT_GROUP = "fundsaga.saga_types"
STEP_MODES = ("activity", "local")


@dataclass(frozen=True)
class WorkerContext:
    """What a saga type's activities are built from, in one worker process."""

    ledger: Ledger
    faults: FaultPlan = field(default_factory=FaultPlan)


ActivityFactory = Callable[[WorkerContext], Sequence[Callable[..., Any]]]


@dataclass(frozen=True, kw_only=True)
class SagaType:
    """One registered saga type."""

    definition: SagaDefinition[Any, Any]
    workflows: Mapping[str, type]
    """The workflow class of each step mode it offers; "activity" is required."""
    activities: ActivityFactory
    """Builds the activities of every step, bound to the worker's ledger and fault plan."""
    system_accounts: tuple[str, ...] = ()
    """Roles of the system accounts its activities post to (`fee-income`: `@fee-income:EUR`)."""
    entry_kinds: tuple[str, ...] = ()
    """Kinds of the entries its activities write with `Ledger.post` (e.g. "fee")."""
    item_saga_type: str | None = None
    """For a batch type: the saga type of its items, which the same worker must run."""

    def __post_init__(self) -> None:
        unknown = set(self.workflows) - set(STEP_MODES)
        if "activity" not in self.workflows or unknown:
            raise RegistrationError(
                f"saga type {self.name}: workflows must map 'activity' (and optionally "
                f"'local') to workflow classes, got {sorted(self.workflows)}"
            )

    @property
    def name(self) -> str:
        return self.definition.saga_type

    def workflow_type(self, step_mode: str = "activity") -> str:
        """The workflow type a saga starts as; that of `activity` if the mode is not offered."""
        chosen = self.workflows.get(step_mode, self.workflows["activity"])
        return workflow_type_name(chosen)


class SagaRegistry:
    """The saga types of one worker or client, by name."""

    def __init__(self, saga_types: Iterable[SagaType] = ()) -> None:
        self._types: dict[str, SagaType] = {}
        for saga_type in saga_types:
            self.register(saga_type)

    def register(self, saga_type: SagaType) -> None:
        if saga_type.name in self._types:
            raise RegistrationError(f"saga type {saga_type.name!r} is registered twice")
        self._types[saga_type.name] = saga_type

    def get(self, name: str) -> SagaType:
        found = self._types.get(name)
        if found is None:
            raise InvalidRequestError(
                "saga_type", f"unknown saga type {name!r}; registered: {', '.join(self.names())}"
            )
        return found

    def parse_request(
        self, saga_type: str, request: SagaRequest | Mapping[str, Any]
    ) -> SagaRequest:
        """The request as the saga type's model; InvalidRequestError naming the field."""
        request_type: type[SagaRequest] = self.get(saga_type).definition.request_type
        if isinstance(request, request_type):
            return request
        if isinstance(request, SagaRequest):
            raise InvalidRequestError(
                "request", f"is a {type(request).__name__}, not a {request_type.__name__}"
            )
        try:
            parsed: SagaRequest = request_type.model_validate(dict(request))
        except ValidationError as err:
            raise invalid_request_from(err) from None
        return parsed

    def names(self) -> list[str]:
        return sorted(self._types)

    def definitions(self) -> dict[str, SagaDefinition[Any, Any]]:
        """Each registered type's definition, by name."""
        return {name: saga_type.definition for name, saga_type in self._types.items()}

    def definitions_by_workflow_type(self) -> dict[str, SagaDefinition[Any, Any]]:
        """Each workflow type a registered type runs as (one per step mode), to its definition."""
        return {
            workflow_type_name(cls): saga_type.definition
            for saga_type in self
            for cls in saga_type.workflows.values()
        }

    def __iter__(self) -> Iterator[SagaType]:
        return iter(self._types.values())

    def has_step(self, saga_type: str | None, step: str) -> bool:
        """Whether `step` is a step of `saga_type` (of any registered type when None)."""
        return any(
            (saga_type is None or t.name == saga_type)
            and any(s.name == step for s in t.definition.steps)
            for t in self
        )

    def workflows(self) -> list[type]:
        return [cls for saga_type in self for cls in saga_type.workflows.values()]

    def activities(self, context: WorkerContext) -> list[Callable[..., Any]]:
        """Every step activity of every type, checked against the steps that name them; the
        worker's ledger first learns each type's system accounts and entry kinds."""
        for saga_type in self:
            context.ledger.declare(
                system_accounts=saga_type.system_accounts, entry_kinds=saga_type.entry_kinds
            )
        for saga_type in self:
            items = saga_type.item_saga_type
            if items is not None and items not in self._types:
                raise RegistrationError(
                    f"batch type {saga_type.name}: its items' saga type {items!r} is not "
                    "registered with it"
                )
        built = {
            activity_name(fn): fn for saga_type in self for fn in saga_type.activities(context)
        }
        for saga_type in self:
            for step in saga_type.definition.steps:
                for name in (step.action, step.compensation, step.inquiry):
                    if name is not None and name not in built:
                        raise RegistrationError(
                            f"saga type {saga_type.name}: step {step.name!r} names the "
                            f"activity {name!r}, which no registered activity provides"
                        )
                if step.inquiry is not None:
                    built[step.action] = asking_first(built[step.action], built[step.inquiry])
        return list(built.values())


def activity_name(fn: Callable[..., Any]) -> str:
    """The activity type a function is registered as."""
    name = activity._Definition.must_from_callable(fn).name
    return name or fn.__name__


def workflow_type_name(workflow_class: type) -> str:
    """The workflow type a class is registered as."""
    name = workflow._Definition.must_from_class(workflow_class).name
    if name is None:
        raise RegistrationError(f"{workflow_class.__name__} is a dynamic workflow: give it a name")
    return name


TRANSFER = SagaType(
    definition=TRANSFER_SAGA,
    workflows={"activity": TransferWorkflow, "local": TransferLocalStepsWorkflow},
    activities=lambda context: TransferActivities(context.ledger, context.faults).all(),
)
FEE_COLLECTION = SagaType(
    definition=FEE_COLLECTION_SAGA,
    workflows={"activity": FeeCollectionWorkflow},
    activities=lambda context: FeeActivities(context.ledger, context.faults).all(),
    system_accounts=(FEE_INCOME, TAX_PAYABLE),
    entry_kinds=(FEE_ENTRY,),
)
FX_TRANSFER = SagaType(
    definition=FX_TRANSFER_SAGA,
    workflows={"activity": FxTransferWorkflow},
    # The worker has no rate-source setting yet: the built-in type quotes from the fixed
    # demo rates; a team binds its own source in a saga type of its own.
    activities=lambda context: FxActivities(context.ledger, context.faults).all(),
    system_accounts=(FX_POSITION,),
    entry_kinds=(FX_ENTRY,),
)
EXTERNAL_PAYOUT = SagaType(
    definition=EXTERNAL_PAYOUT_SAGA,
    workflows={"activity": ExternalPayoutWorkflow},
    # The provider's address is the deployment's: read from the settings as the worker starts.
    activities=lambda context: PayoutActivities.from_settings(
        context.ledger, context.faults, load_settings()
    ).all(),
    system_accounts=(PAYOUT_CLEARING,),
    entry_kinds=(PAYOUT_ENTRY,),
)
PAYOUT_BATCH = SagaType(
    definition=PAYOUT_BATCH_DEFINITION.saga,
    workflows={"activity": PayoutBatchWorkflow},
    activities=lambda context: [],
    item_saga_type=EXTERNAL_PAYOUT.name,
)
EOD_SWEEP = SagaType(
    definition=EOD_SWEEP_SAGA,
    workflows={"activity": EodSweepWorkflow},
    activities=lambda context: SweepActivities(context.ledger, context.faults).all(),
    entry_kinds=(SWEEP_ENTRY,),
)
BUILT_IN: tuple[SagaType, ...] = (
    TRANSFER,
    FEE_COLLECTION,
    FX_TRANSFER,
    EXTERNAL_PAYOUT,
    PAYOUT_BATCH,
    EOD_SWEEP,
)


def built_in_registry() -> SagaRegistry:
    return SagaRegistry(BUILT_IN)


def load_registry(modules: Sequence[str] = ()) -> SagaRegistry:
    """The built-in saga types, those of `modules` and those of the entry-point group."""
    registry = built_in_registry()
    for saga_type in [t for name in modules for t in _from_module(name)] + _from_entry_points():
        registry.register(saga_type)
    return registry


def _from_module(name: str) -> list[SagaType]:
    try:
        module = importlib.import_module(name)
    except ImportError as err:
        raise RegistrationError(f"saga module {name!r} cannot be imported: {err}") from err
    return _saga_types(getattr(module, "SAGA_TYPES", None), f"module {name}")


def _from_entry_points() -> list[SagaType]:
    found: list[SagaType] = []
    for point in entry_points(group=ENTRY_POINT_GROUP):
        found += _saga_types(point.load(), f"entry point {point.name}")
    return found


def _saga_types(value: object, where: str) -> list[SagaType]:
    if isinstance(value, SagaType):
        return [value]
    if isinstance(value, list | tuple):
        types = [v for v in value if isinstance(v, SagaType)]
        if len(types) == len(value):
            return types
    raise RegistrationError(f"{where}: expected SAGA_TYPES, a sequence of SagaType")
