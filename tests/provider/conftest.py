from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.provider.http import CallbackSink
from tooling.provider import ProviderProcess


@pytest.fixture(scope="module")
def provider() -> Iterator[str]:
    with ProviderProcess() as process:
        yield process.url


@pytest.fixture
def sink() -> Iterator[tuple[str, CallbackSink]]:
    received = CallbackSink()
    url, server = received.start()
    yield url, received
    server.shutdown()
    server.server_close()
