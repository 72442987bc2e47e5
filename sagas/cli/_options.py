"""Options and arguments that several command groups share."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from sagas.engine import SagaStatus
from sagas.foundations import FundsagaError, InvalidRequestError, load_settings, loads_one_reading
from sagas.registry import load_registry


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
ReportFile = Annotated[Path | None, typer.Option("--file", help="Write the report there.")]
ReportMaker = Annotated[
    str | None, typer.Option("--by", help="Your name, recorded as the report's maker.")
]
ReportSignKey = Annotated[
    Path | None,
    typer.Option(
        "--sign-key",
        help="Sign with this Ed25519 private key (an auditor's own).",
        show_default="FUNDSAGA_AUDIT_SIGNING_KEY when present, else unsigned",
    ),
]
RequestJson = Annotated[
    str,
    typer.Option(
        "--request",
        "-r",
        metavar="JSON",
        help="The saga's request as a JSON object, or @FILE to read it from a file.",
        show_default=False,
    ),
]


def request_fields(text: str) -> dict[str, Any]:
    """The --request object, read from @FILE when it starts with @."""
    source = text
    if text.startswith("@"):
        try:
            source = Path(text[1:]).read_text(encoding="utf-8")
        except OSError as err:
            raise InvalidRequestError(
                "request", f"cannot read {text[1:]}: {err.strerror}"
            ) from None
    try:
        fields = loads_one_reading(source)
    except json.JSONDecodeError as err:
        raise InvalidRequestError("request", f"is not JSON: {err.msg} (char {err.pos})") from None
    except InvalidRequestError as err:
        raise InvalidRequestError(f"request.{err.field}", err.problem) from None
    if not isinstance(fields, dict):
        raise InvalidRequestError("request", "must be a JSON object of the request's fields")
    return fields
