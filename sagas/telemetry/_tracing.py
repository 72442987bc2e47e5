"""OpenTelemetry traces through the SDK's tracing interceptor, when FUNDSAGA_OTLP_ENDPOINT is set.

The interceptor goes on the Temporal client; a worker built on that client takes it too, so a
saga's trace runs from the client's StartWorkflow span through the workflow to each activity.
"""

from __future__ import annotations

from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.resources import SERVICE_NAME, Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SimpleSpanProcessor, SpanExporter
from temporalio.contrib.opentelemetry import TracingInterceptor

from sagas.foundations import Settings

SERVICE = "fundsaga"
EXPORT_TIMEOUT = 5.0
"""Seconds one export, retries included, waits for the collector: a command ends at most this
much later when the collector is down."""
_configured: dict[str, TracerProvider] = {}
"""One provider per endpoint in a process, so every client there shares its exporter."""


def tracer_provider(exporter: SpanExporter, *, batch: bool = True) -> TracerProvider:
    """A provider of service `fundsaga` that sends its spans to `exporter`, in batches unless
    `batch` is false (tests read each span as it ends)."""
    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: SERVICE}))
    processor = BatchSpanProcessor(exporter) if batch else SimpleSpanProcessor(exporter)
    provider.add_span_processor(processor)
    return provider


def configured_tracer_provider(settings: Settings) -> TracerProvider | None:
    """The process's provider exporting to FUNDSAGA_OTLP_ENDPOINT; None when it is empty."""
    endpoint = settings.otlp_endpoint
    if not endpoint:
        return None
    if endpoint not in _configured:
        url = f"{endpoint.rstrip('/')}/v1/traces"
        exporter = OTLPSpanExporter(endpoint=url, timeout=EXPORT_TIMEOUT)
        _configured[endpoint] = tracer_provider(exporter)
    return _configured[endpoint]


def tracing_interceptors(provider: TracerProvider | None) -> list[TracingInterceptor]:
    """The client interceptors that trace through `provider`; none without one."""
    if provider is None:
        return []
    return [TracingInterceptor(provider.get_tracer(SERVICE))]


def shutdown_tracing() -> None:
    """Send the spans still batched: the `fundsaga` process ends without running exit hooks."""
    for provider in _configured.values():
        provider.shutdown()
    _configured.clear()
