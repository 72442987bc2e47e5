"""The `fundsaga` command: every Typer command and the one output renderer."""

from typing import NoReturn

from sagas.cli._app import app, run_cli
from sagas.cli._dev import run_catalog
from sagas.cli._errors import explain
from sagas.cli._output import OutputFormat, listing, outcome_shown, render, said
from sagas.client import end_process
from sagas.foundations import InvalidRequestError, load_settings
from sagas.telemetry import configure_logging


def main() -> NoReturn:
    """The `fundsaga` console script."""
    try:
        log_format = load_settings().log_format
    except InvalidRequestError:
        log_format = "text"  # the command itself reports the bad setting, as one error line
    configure_logging(log_format)
    end_process(run_cli())


__all__ = [
    "OutputFormat",
    "app",
    "explain",
    "listing",
    "main",
    "outcome_shown",
    "render",
    "run_catalog",
    "run_cli",
    "said",
]
