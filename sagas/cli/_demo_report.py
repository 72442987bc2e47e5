"""The demo's last step: the reconciliation pack of the day it ran, written where a newcomer
opens it and verified offline, each by the command an auditor would run."""

from __future__ import annotations

import asyncio
import os
import sys
from datetime import UTC, datetime
from pathlib import Path

from sagas.foundations import DEFAULT_HOME


async def write_demo_report(temporal_address: str) -> Path:
    """`fundsaga reconcile report` to an HTML file, then `fundsaga audit verify-report` of it;
    prints what each said."""
    stamp = datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    path = (DEFAULT_HOME / "reports" / f"reconciliation-{stamp}.html").resolve()
    path.parent.mkdir(parents=True, exist_ok=True)
    env = os.environ | {"TEMPORAL_ADDRESS": temporal_address}
    report = ("reconcile", "report", "--output", "html", "--file", str(path), "--by", "demo")
    verify = ("audit", "verify-report", str(path), "--kind", "reconciliation")
    print(f"  {await _fundsaga(env, *report)}")
    print(f"  {await _fundsaga(env, *verify)}")
    print(f"  open file://{path} to read it")
    return path


async def _fundsaga(env: dict[str, str], *argv: str) -> str:
    """What the command printed, its exit code when it is not 0."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "sagas",
        *argv,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await process.communicate()
    said = " ".join(out.decode(errors="replace").split())
    return said if process.returncode == 0 else f"{said} (exit {process.returncode})"
