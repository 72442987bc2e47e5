"""The servers fundsaga runs beside Temporal: the embedded dev server, the codec server for the
UI, the provider webhook receiver and the visibility collector."""

from sagas.foundations import AccessTokenCheck
from sagas.servers._break_ages import OpenBreaks, open_breaks
from sagas.servers._codec_auth import CodecAuthorisation
from sagas.servers._codec_server import CodecServer, serve_codec
from sagas.servers._collector import (
    DELETED_GRACE,
    Collection,
    PollerKind,
    SagaTypeBacklog,
    VisibilityCollector,
)
from sagas.servers._collector_metrics import CollectorGauges, collect_and_publish, run_collector
from sagas.servers._dev_codec_token import DEV_CODEC_TOKEN_FILE, new_dev_codec_token
from sagas.servers._devserver import (
    DEV_SERVER_DYNAMIC_CONFIG,
    dev_server_args,
    start_dev_server,
    temporal_cli_path,
)
from sagas.servers._ports import check_ports_free, free_port, port_is_free
from sagas.servers._webhook_auth import SIGNATURE_HEADER, WebhookSecrets, signature_header
from sagas.servers._webhooks import WebhookServer, serve_webhooks

__all__ = [
    "DELETED_GRACE",
    "DEV_CODEC_TOKEN_FILE",
    "DEV_SERVER_DYNAMIC_CONFIG",
    "SIGNATURE_HEADER",
    "AccessTokenCheck",
    "CodecAuthorisation",
    "CodecServer",
    "Collection",
    "CollectorGauges",
    "OpenBreaks",
    "PollerKind",
    "SagaTypeBacklog",
    "VisibilityCollector",
    "WebhookSecrets",
    "WebhookServer",
    "check_ports_free",
    "collect_and_publish",
    "dev_server_args",
    "free_port",
    "new_dev_codec_token",
    "open_breaks",
    "port_is_free",
    "run_collector",
    "serve_codec",
    "serve_webhooks",
    "signature_header",
    "start_dev_server",
    "temporal_cli_path",
]
