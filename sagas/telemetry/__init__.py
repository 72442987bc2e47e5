"""What a process reports about itself: the metrics runtime, tracing and logging."""

from sagas.telemetry._logging import JsonFormatter, configure_logging
from sagas.telemetry._metrics_runtime import metrics_runtime, prometheus_runtime
from sagas.telemetry._tracing import (
    configured_tracer_provider,
    shutdown_tracing,
    tracer_provider,
    tracing_interceptors,
)

__all__ = [
    "JsonFormatter",
    "configure_logging",
    "configured_tracer_provider",
    "metrics_runtime",
    "prometheus_runtime",
    "shutdown_tracing",
    "tracer_provider",
    "tracing_interceptors",
]
