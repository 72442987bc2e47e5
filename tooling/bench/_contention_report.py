"""The contention shapes as a text table."""

from __future__ import annotations

from tooling.bench._results import Contention

HEADER = [
    "shape",
    "db",
    "sagas",
    "lanes",
    "accepted/s",
    "applied/s",
    "p50 ms",
    "p95 ms",
    "closed",
    "journal",
    "lost",
    "busiest account",
    "invariants",
]


def _row(c: Contention) -> list[str]:
    closed = ", ".join(f"{status} {n}" for status, n in sorted(c.statuses.items()))
    return [
        c.shape,
        c.database,
        str(c.sagas),
        str(c.concurrency),
        f"{c.accepted_per_s:.1f}",
        f"{c.applied_per_s:.1f}",
        f"{c.latency.p50_ms:.0f}",
        f"{c.latency.p95_ms:.0f}",
        closed,
        str(c.journal_applied),
        str(c.lost),
        f"{c.busiest_account} ({c.busiest_sagas})",
        "ok" if not c.invariant_findings else f"{len(c.invariant_findings)} findings",
    ]


def contention_table(shapes: list[Contention], elapsed_s: float) -> list[str]:
    """The table, or nothing when the section did not run."""
    if not shapes:
        return []
    rows = [HEADER] + [_row(c) for c in shapes]
    widths = [max(len(r[i]) for r in rows) for i in range(len(HEADER))]
    lines = ["", f"Contention shapes (saga level, ENGINE; section wall time {elapsed_s:.0f} s):"]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(r, widths, strict=True)) for r in rows]
    return [*lines, ""]
