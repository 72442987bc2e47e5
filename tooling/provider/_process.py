"""Running the simulator as a subprocess on a free port, for the tests and the demo."""

from __future__ import annotations

import datetime
import os
import secrets
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from urllib.parse import urlencode

ROOT = Path(__file__).resolve().parents[2]
READY_TIMEOUT_SECONDS = 15.0
WEBHOOK_SECRET_ENV = "PROVIDER_WEBHOOK_SECRET"
"""The secret the simulator signs its callbacks with (the provider's side of
FUNDSAGA_WEBHOOK_SECRETS)."""


class ProviderProcess:
    """`with ProviderProcess() as provider:` starts the service, waits until it answers, and
    stops it at the end; `provider.url` is its base URL, `provider.webhook_secret` the secret
    it signs its callbacks with (a new one for each simulator), and
    `provider.webhook_secrets(saga_type)` the FUNDSAGA_WEBHOOK_SECRETS that accepts them."""

    def __init__(
        self,
        webhook_secret: str | None = None,
        port: int = 0,
        *,
        preexec_fn: Callable[[], None] | None = None,
    ) -> None:
        """`port` 0: a free one; `preexec_fn` runs in the simulator's process before it starts
        (the demo's makes it die with the demo)."""
        self._process: subprocess.Popen[str] | None = None
        self._preexec_fn = preexec_fn
        self.port = port
        self.url = ""
        self.webhook_secret = webhook_secret or secrets.token_urlsafe(32)

    def webhook_secrets(self, saga_type: str = "payout") -> str:
        return f"{saga_type}={self.webhook_secret}"

    def statement(
        self, date: datetime.date | None = None, fmt: str = "camt053", currency: str = "EUR"
    ) -> bytes:
        """The provider account's statement file of `date` (default: its latest booking day)."""
        query = {"format": fmt, "currency": currency}
        if date is not None:
            query["date"] = date.isoformat()
        url = f"{self.url}/statements?{urlencode(query)}"
        with urllib.request.urlopen(url, timeout=10) as answer:
            data: bytes = answer.read()
            return data

    def start(self) -> str:
        env = os.environ | {"PYTHONPATH": str(ROOT), WEBHOOK_SECRET_ENV: self.webhook_secret}
        self._process = subprocess.Popen(
            [sys.executable, "-m", "tooling.provider", "--port", str(self.port)],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=self._preexec_fn,
        )
        assert self._process.stdout is not None
        line = self._process.stdout.readline().strip()
        if not line.startswith("provider listening on "):
            self.stop()
            raise RuntimeError(f"the provider simulator did not start: {line!r}")
        self.url = line.removeprefix("provider listening on ")
        self._wait_ready()
        return self.url

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + READY_TIMEOUT_SECONDS
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/health", timeout=1) as answer:
                    if answer.status == 200:
                        return
            except (urllib.error.URLError, OSError):
                if time.monotonic() > deadline:
                    self.stop()
                    raise
            time.sleep(0.05)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()

    def __enter__(self) -> ProviderProcess:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()
