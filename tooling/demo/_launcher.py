"""`python -m tooling.demo [fundsaga dev options]`, what `make run` runs: start the
payment-provider simulator, run `fundsaga dev --demo` against it with its webhook receiver on a
free port, and stop the simulator when the dev stack ends (Ctrl-C or SIGTERM too).

The simulator listens on DEMO_PROVIDER_PORT and the receiver at FUNDSAGA_WEBHOOK_URL when they
are set (free ports otherwise).

On Linux, `fundsaga dev` and the simulator get SIGTERM when this process dies, even killed by
SIGKILL: they then stop as on Ctrl-C, the dev server with them, instead of holding the ports for
the next run."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from sagas.servers import free_port
from tooling.provider import ProviderProcess


def dev_command(args: list[str]) -> list[str]:
    """`fundsaga dev --demo` from the same environment as this Python."""
    fundsaga = Path(sys.executable).parent / "fundsaga"
    return [str(fundsaga), "dev", "--demo", *args]


PROVIDER_PORT_ENV = "DEMO_PROVIDER_PORT"
PR_SET_PDEATHSIG = 1
"""prctl(2)'s option: the kernel sends the signal given when the caller's parent thread exits."""


def dies_with_this_process() -> Callable[[], None] | None:
    """A `preexec_fn` giving the child SIGTERM when this process dies (Linux; else None).

    The signal follows the thread that forks the child: here the main thread, which lives as
    long as the process. A child whose parent died before the signal was armed exits at once."""
    if sys.platform != "linux":
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl
    owner = os.getpid()

    def arm() -> None:
        if prctl(PR_SET_PDEATHSIG, ctypes.c_ulong(signal.SIGTERM)) != 0 or os.getppid() != owner:
            os._exit(1)

    return arm


def main(args: list[str]) -> int:
    port = int(os.environ.get(PROVIDER_PORT_ENV) or 0)
    with ProviderProcess(port=port, preexec_fn=dies_with_this_process()) as provider:
        print(f"provider simulator on {provider.url}", flush=True)
        webhook_url = os.environ.get("FUNDSAGA_WEBHOOK_URL") or f"http://127.0.0.1:{free_port()}"
        env = os.environ | {
            "FUNDSAGA_PROVIDER_URL": provider.url,
            "FUNDSAGA_WEBHOOK_URL": webhook_url,
            "FUNDSAGA_WEBHOOK_SECRETS": provider.webhook_secrets(),
        }
        dev = subprocess.Popen(dev_command(args), env=env, preexec_fn=dies_with_this_process())
        # Ctrl-C reaches the whole process group, dev included; a SIGTERM is for us alone.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, lambda signum, frame: dev.send_signal(signum))
        return dev.wait()
