"""`python -m tooling.demo [fundsaga dev options]`, what `make run` runs: start the
payment-provider simulator, run `fundsaga dev --demo` against it with its webhook receiver on a
free port, and stop the simulator when the dev stack ends (Ctrl-C or SIGTERM too).

The simulator listens on DEMO_PROVIDER_PORT and the receiver at FUNDSAGA_WEBHOOK_URL when they
are set (free ports otherwise)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

from sagas.servers import free_port
from tooling.provider import ProviderProcess


def dev_command(args: list[str]) -> list[str]:
    """`fundsaga dev --demo` from the same environment as this Python."""
    fundsaga = Path(sys.executable).parent / "fundsaga"
    return [str(fundsaga), "dev", "--demo", *args]


PROVIDER_PORT_ENV = "DEMO_PROVIDER_PORT"


def main(args: list[str]) -> int:
    with ProviderProcess(port=int(os.environ.get(PROVIDER_PORT_ENV) or 0)) as provider:
        print(f"provider simulator on {provider.url}", flush=True)
        webhook_url = os.environ.get("FUNDSAGA_WEBHOOK_URL") or f"http://127.0.0.1:{free_port()}"
        env = os.environ | {
            "FUNDSAGA_PROVIDER_URL": provider.url,
            "FUNDSAGA_WEBHOOK_URL": webhook_url,
            "FUNDSAGA_WEBHOOK_SECRETS": provider.webhook_secrets(),
        }
        dev = subprocess.Popen(dev_command(args), env=env)
        # Ctrl-C reaches the whole process group, dev included; a SIGTERM is for us alone.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, lambda signum, frame: dev.send_signal(signum))
        return dev.wait()
