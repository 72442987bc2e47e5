"""The `fundsaga` command: every Typer command and the one output renderer."""

from typing import NoReturn

from sagas.cli._app import app, run_cli
from sagas.cli._dev import run_catalog
from sagas.cli._errors import explain
from sagas.cli._output import OutputFormat, listing, outcome_shown, render, said
from sagas.client import end_process
from sagas.foundations import InvalidRequestError, load_settings
from sagas.telemetry import configure_logging
from sagas.worker import import_from_working_directory


def main() -> NoReturn:
    """The `fundsaga` console script."""
    try:
        settings = load_settings()
    except InvalidRequestError:
        settings = None  # the command itself reports the bad setting, as one error line
    configure_logging(settings.log_format if settings is not None else "text")
    if settings is not None:
        import_from_working_directory(settings.saga_module_names)
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
