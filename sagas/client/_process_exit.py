"""How a process with Temporal clients ends without aborting.

The Temporal SDK's client sits in a reference cycle, so the interpreter frees it in its last
garbage collection, while it finalizes; the SDK's Rust runtime then calls into Python from its
own threads and the process aborts at exit with `Fatal Python error: PyGILState_Release`
(exit 134) or a segmentation fault, about one run in ten:
https://github.com/temporalio/sdk-python/issues/300. Collected before finalization, at exit, it
goes quietly: `collect_before_exit` makes that so for any script that connects through
fundsaga, and the `fundsaga` command itself ends with `end_process`.
"""

from __future__ import annotations

import atexit
import gc
from typing import NoReturn

from sagas.foundations import exit_now

_registered: list[bool] = []


def collect_before_exit() -> None:
    """Free unreachable Temporal clients at exit, before the interpreter finalizes; once per
    process, whatever the number of calls."""
    if not _registered:
        _registered.append(True)
        atexit.register(gc.collect)


def end_process(code: int) -> NoReturn:
    """Output flushed, then no interpreter teardown: by the time this runs the command has
    closed its database engines and dropped its Temporal client."""
    exit_now(code)
