"""The SDK runtime that serves a worker's metrics, the SDK's and the engine's, to Prometheus."""

from __future__ import annotations

from functools import cache

from temporalio.runtime import PrometheusConfig, Runtime, TelemetryConfig

from sagas.engine import METRICS_HISTOGRAM_BUCKETS
from sagas.foundations import InvalidRequestError, Settings


@cache
def prometheus_runtime(bind_address: str) -> Runtime:
    """A runtime whose own HTTP server answers `GET /metrics` at `bind_address`.

    Cached: the exporter binds its address once, so a process has one such runtime per
    address. Counters end in `_total` and durations are seconds, as Prometheus names them.
    """
    config = PrometheusConfig(
        bind_address=bind_address,
        counters_total_suffix=True,
        durations_as_seconds=True,
        histogram_bucket_overrides=METRICS_HISTOGRAM_BUCKETS,
    )
    try:
        return Runtime(telemetry=TelemetryConfig(metrics=config))
    except ValueError as err:  # the SDK's "Failed starting Prometheus exporter"
        raise InvalidRequestError(
            "FUNDSAGA_METRICS_ADDRESS", f"cannot serve metrics at {bind_address}: {err}"
        ) from None


def metrics_runtime(settings: Settings) -> Runtime | None:
    """The runtime serving metrics at FUNDSAGA_METRICS_ADDRESS; None (the SDK's default
    runtime, no metrics) when it is empty."""
    address = settings.metrics_address
    return prometheus_runtime(address) if address else None
