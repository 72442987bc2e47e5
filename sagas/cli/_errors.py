"""The one place where a command's exception becomes one line on stderr and an exit code.

0 ok, 1 a failure or a finding, 2 a usage error or invalid input; never a traceback.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import Any

from sqlalchemy.exc import SQLAlchemyError
from temporalio.client import WorkflowFailureError
from temporalio.service import RPCError, RPCStatusCode

# Typer ships its own copy of Click and re-exports none of its exception base classes.
from typer._click.exceptions import ClickException
from typer.core import TyperGroup

from sagas.foundations import FundsagaError, InvalidRequestError

OK = 0
FAILURE = 1
USAGE = 2


class CommandRefusedError(FundsagaError):
    """The command cannot act on the saga as it stands (closed, parked)."""


class FundsagaGroup(TyperGroup):
    """The root command: whatever a command raises ends here, as one line and an exit code."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        try:
            returned = super().main(
                args,
                prog_name,
                complete_var,
                standalone_mode=False,
                windows_expand_args=windows_expand_args,
                **extra,
            )
            code = returned if isinstance(returned, int) else OK
        except SystemExit as stop:  # shell completion, or Typer's answer to a closed pipe
            code = stop.code if isinstance(stop.code, int) else FAILURE if stop.code else OK
        except Exception as err:
            line, code = explain(err)
            if line:
                print(line, file=sys.stderr)
        if standalone_mode:
            sys.exit(code)
        return code


def explain(err: Exception) -> tuple[str, int]:
    """The line (empty when Typer already printed help) and the exit code for `err`."""
    if isinstance(err, ClickException):
        return _usage(err), err.exit_code
    if isinstance(err, InvalidRequestError):
        return _line(f"error: {err}"), USAGE
    if isinstance(err, CommandRefusedError):
        return _line(f"error: {err}"), FAILURE
    if isinstance(err, FundsagaError):
        return _line(f"error: {type(err).__name__}: {err}"), FAILURE
    if isinstance(err, RPCError):
        return _line(_rpc(err)), FAILURE
    if isinstance(err, WorkflowFailureError):
        why = err.cause or err
        return _line(f"error: the saga's workflow failed (an engine fault): {why}"), FAILURE
    if isinstance(err, SQLAlchemyError):
        return _line(f"error: database: {getattr(err, 'orig', None) or err}"), FAILURE
    if isinstance(err, OSError):
        return _line(f"error: {err}"), FAILURE
    return _line(f"error: unexpected {type(err).__name__}: {err}"), FAILURE


def _usage(err: ClickException) -> str:
    message = err.format_message()
    if not message:  # a group called without a command: Typer has printed its help
        return ""
    ctx = getattr(err, "ctx", None)
    hint = f" (see '{ctx.command_path} --help')" if ctx is not None else ""
    return _line(f"error: {message}{hint}")


def _rpc(err: RPCError) -> str:
    if err.status in (RPCStatusCode.UNAVAILABLE, RPCStatusCode.DEADLINE_EXCEEDED):
        return f"error: Temporal is not reachable: {err.message}"
    if err.status is RPCStatusCode.NOT_FOUND:
        return f"error: not found: {err.message}"
    return f"error: Temporal refused the call ({err.status.name}): {err.message}"


def _line(text: str) -> str:
    return " ".join(part.strip() for part in text.splitlines() if part.strip())
