"""Options and arguments that several command groups share."""

from __future__ import annotations

from typing import Annotated

import typer

from sagas.app._registry import load_registry
from sagas.engine import SagaStatus
from sagas.foundations import FundsagaError, load_settings


def registered_types() -> list[str]:
    """Shell completion of `--type`: the saga types this configuration registers."""
    try:
        return load_registry(load_settings().saga_module_names).names()
    except FundsagaError:
        return []


Key = Annotated[str, typer.Argument(help="The caller's idempotency key.", show_default=False)]
SagaType = Annotated[
    str,
    typer.Option(
        "--type", "-t", help="The saga type, e.g. transfer.", autocompletion=registered_types
    ),
]
TypeFilter = Annotated[
    str | None,
    typer.Option("--type", "-t", help="Only sagas of this type.", autocompletion=registered_types),
]
StatusFilter = Annotated[
    SagaStatus | None,
    typer.Option("--status", "-s", help="Only sagas in this status.", case_sensitive=False),
]
