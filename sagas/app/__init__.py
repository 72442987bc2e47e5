"""The application around the engine: the client for services, the worker, the CLI."""

from typing import NoReturn

from sagas.app._anchor_schedule import anchor_schedule_id, ensure_anchor_schedule
from sagas.app._audit_keys import anchor_head, open_audit, verifier_keys, writer_keys
from sagas.app._audit_verify import TrailVerdict, verify_trail
from sagas.app._cli import run_cli
from sagas.app._cli_exit import end_process
from sagas.app._client import (
    TRANSFER_WORKFLOW_BY_STEP_MODE,
    FundsagaClient,
    TemporalUnreachableError,
    connect_temporal,
    transfer_workflow_id,
)
from sagas.app._codec_auth import AccessTokenCheck, CodecAuthorisation
from sagas.app._codec_server import CodecServer, serve_codec
from sagas.app._collector import Collection, PollerKind, SagaTypeBacklog, VisibilityCollector
from sagas.app._collector_metrics import CollectorGauges, run_collector
from sagas.app._data_converter import converter_for, data_converter
from sagas.app._devserver import (
    DEV_SERVER_DYNAMIC_CONFIG,
    dev_server_args,
    start_dev_server,
    temporal_cli_path,
)
from sagas.app._ledger_verify import LedgerVerdict, verify_ledger
from sagas.app._logging import JsonFormatter, configure_logging
from sagas.app._metrics_runtime import metrics_runtime, prometheus_runtime
from sagas.app._payload_codec import (
    EncryptingCodec,
    PayloadCipher,
    PayloadDecryptionError,
    PayloadKeys,
)
from sagas.app._registry import (
    ENTRY_POINT_GROUP,
    SagaRegistry,
    SagaType,
    WorkerContext,
    activity_name,
    built_in_registry,
    load_registry,
    workflow_type_name,
)
from sagas.app._saga_handle import SagaHandle
from sagas.app._schedule_dst import DST_HORIZON_YEARS, matching_times
from sagas.app._schedules import (
    COMPANION_SUFFIX,
    DEFAULT_CATCHUP_WINDOW,
    Overlap,
    SagaSchedules,
    ScheduledRunView,
    ScheduleSummary,
    ScheduleView,
)
from sagas.app._tracing import configured_tracer_provider, tracer_provider, tracing_interceptors
from sagas.app._webhooks import WebhookServer, serve_webhooks
from sagas.app._worker import build_worker, saga_workflow_runner
from sagas.engine import saga_id
from sagas.foundations import InvalidRequestError, load_settings


def main() -> NoReturn:
    """The `fundsaga` console script."""
    try:
        log_format = load_settings().log_format
    except InvalidRequestError:
        log_format = "text"  # the command itself reports the bad setting, as one error line
    configure_logging(log_format)
    end_process(run_cli())


__all__ = [
    "COMPANION_SUFFIX",
    "DEFAULT_CATCHUP_WINDOW",
    "DEV_SERVER_DYNAMIC_CONFIG",
    "DST_HORIZON_YEARS",
    "ENTRY_POINT_GROUP",
    "TRANSFER_WORKFLOW_BY_STEP_MODE",
    "AccessTokenCheck",
    "CodecAuthorisation",
    "CodecServer",
    "Collection",
    "CollectorGauges",
    "EncryptingCodec",
    "FundsagaClient",
    "JsonFormatter",
    "LedgerVerdict",
    "Overlap",
    "PayloadCipher",
    "PayloadDecryptionError",
    "PayloadKeys",
    "PollerKind",
    "SagaHandle",
    "SagaRegistry",
    "SagaSchedules",
    "SagaType",
    "SagaTypeBacklog",
    "ScheduleSummary",
    "ScheduleView",
    "ScheduledRunView",
    "TemporalUnreachableError",
    "TrailVerdict",
    "VisibilityCollector",
    "WebhookServer",
    "WorkerContext",
    "activity_name",
    "anchor_head",
    "anchor_schedule_id",
    "build_worker",
    "built_in_registry",
    "configure_logging",
    "configured_tracer_provider",
    "connect_temporal",
    "converter_for",
    "data_converter",
    "dev_server_args",
    "end_process",
    "ensure_anchor_schedule",
    "load_registry",
    "main",
    "matching_times",
    "metrics_runtime",
    "open_audit",
    "prometheus_runtime",
    "run_cli",
    "run_collector",
    "saga_id",
    "saga_workflow_runner",
    "serve_codec",
    "serve_webhooks",
    "start_dev_server",
    "temporal_cli_path",
    "tracer_provider",
    "tracing_interceptors",
    "transfer_workflow_id",
    "verifier_keys",
    "verify_ledger",
    "verify_trail",
    "workflow_type_name",
    "writer_keys",
]
