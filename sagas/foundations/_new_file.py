"""A file written once: created for this write alone, never over an existing one."""

from __future__ import annotations

import os
from pathlib import Path


def write_new_file(path: Path, data: bytes, mode: int, *, durable: bool = False) -> None:
    """Create `path` with exactly `mode` and write `data`; FileExistsError if it exists.

    Written through the descriptor, closed in `finally`: no file object is left for the garbage
    collector to close should the write be interrupted. `durable` syncs it to disk first."""
    descriptor = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, mode)
    try:
        os.fchmod(descriptor, mode)  # the mode asked for, whatever the umask takes from it
        view = memoryview(data)
        while view:
            view = view[os.write(descriptor, view) :]
        if durable:
            os.fsync(descriptor)
    finally:
        os.close(descriptor)
