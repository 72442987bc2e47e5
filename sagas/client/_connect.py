"""Connecting to Temporal: once (a command), or until it answers (a long-running process)."""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Iterator
from datetime import timedelta

from temporalio.client import Client

from sagas.client._process_exit import collect_before_exit
from sagas.codec import data_converter
from sagas.foundations import FundsagaError, Settings
from sagas.telemetry import configured_tracer_provider, metrics_runtime, tracing_interceptors

log = logging.getLogger("fundsaga.client")

FIRST_RETRY = timedelta(seconds=1)
LONGEST_RETRY = timedelta(seconds=30)
"""A process waiting for Temporal tries again after 1 s, then twice as long each time, up to
this: a server that comes back is found within 30 s, and one that stays down costs a log line
every 30 s."""


class TemporalUnreachableError(FundsagaError):
    """Temporal did not answer at TEMPORAL_ADDRESS within FUNDSAGA_TEMPORAL_CONNECT_TIMEOUT."""


async def connect_temporal(
    settings: Settings, *, serve_metrics: bool = False, wait: bool = False
) -> Client:
    """A client on TEMPORAL_ADDRESS; TemporalUnreachableError when it does not answer in time.

    `wait` (a long-running process: a worker, the collector, the webhook receiver) never gives
    up: each attempt that fails is logged at WARNING with the next wait (`retry_waits`), until
    Temporal answers or the task is cancelled (a stop signal, Ctrl-C).

    `serve_metrics` (a worker's client) serves the metrics of everything on this client at
    FUNDSAGA_METRICS_ADDRESS, when set; other commands leave the address to the worker.
    With FUNDSAGA_OTLP_ENDPOINT set, the client and the workers built on it send traces there.
    """
    if not wait:
        return await _connect_once(settings, serve_metrics)
    waits = retry_waits()
    while True:
        try:
            return await _connect_once(settings, serve_metrics)
        except TemporalUnreachableError as err:
            pause = next(waits)
            log.warning("%s; retrying in %g s", err, pause.total_seconds())
        await asyncio.sleep(pause.total_seconds())


def retry_waits(
    first: timedelta = FIRST_RETRY, longest: timedelta = LONGEST_RETRY
) -> Iterator[timedelta]:
    """The waits between attempts: `first`, doubling, then `longest` for ever."""
    pause = first
    while True:
        yield min(pause, longest)
        pause = min(pause * 2, longest)


async def _connect_once(settings: Settings, serve_metrics: bool) -> Client:
    """The SDK's own connect timeout bounds the TCP connection only: a server that accepts the
    connection and never answers would hold the caller for the SDK's 30 s RPC timeout."""
    seconds = settings.temporal_connect_timeout
    where = f"Temporal at {settings.temporal_address}"
    collect_before_exit()
    try:
        async with asyncio.timeout(seconds):
            return await Client.connect(
                settings.temporal_address,
                namespace=settings.temporal_namespace,
                data_converter=data_converter(settings),
                connect_timeout=timedelta(seconds=seconds),
                runtime=metrics_runtime(settings) if serve_metrics else None,
                interceptors=tracing_interceptors(configured_tracer_provider(settings)),
            )
    except TimeoutError:
        raise TemporalUnreachableError(f"{where} did not answer within {seconds:g} s") from None
    except RuntimeError as err:  # the SDK's "Failed client connect"
        raise TemporalUnreachableError(f"{where} is not reachable: {_why(err)}") from None


def _why(err: RuntimeError) -> str:
    """The operating system's reason inside the SDK's connect error, else its first line."""
    found = re.search(r'message: "([^"]+)"', str(err))
    return found.group(1) if found else str(err).splitlines()[0]
