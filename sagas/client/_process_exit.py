"""How the `fundsaga` process ends: output flushed, then no interpreter teardown.

The Temporal SDK's Rust runtime keeps threads that can call into Python while the interpreter
finalizes, and a short-lived client process then aborts at exit with `Fatal Python error:
PyGILState_Release` (exit 134): https://github.com/temporalio/sdk-python/issues/300. By the
time this runs the command has closed its database engines and dropped its Temporal client,
so teardown has nothing left to do that `os._exit` skips.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from typing import NoReturn


def end_process(code: int) -> NoReturn:
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # the reader went away (`| head`)
            stream.flush()
    os._exit(code)
