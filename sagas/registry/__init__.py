"""The saga types a process knows: the built-in ones and those of FUNDSAGA_SAGA_MODULES or the
`fundsaga.saga_types` entry point, with their workflow and activity names."""

from sagas.registry._registry import (
    ENTRY_POINT_GROUP,
    SagaRegistry,
    SagaType,
    WorkerContext,
    activity_name,
    built_in_registry,
    load_registry,
    workflow_type_name,
)

__all__ = [
    "ENTRY_POINT_GROUP",
    "SagaRegistry",
    "SagaType",
    "WorkerContext",
    "activity_name",
    "built_in_registry",
    "load_registry",
    "workflow_type_name",
]
