"""The saga types a process knows: the built-in ones, those registered by entry point, and the
retry specs configured for them."""

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
