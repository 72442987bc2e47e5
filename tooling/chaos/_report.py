"""The figures of a chaos run as a table."""

from __future__ import annotations

from tooling.chaos._runner import ChaosReport


def render(report: ChaosReport) -> str:
    config = report.plan.config
    rows = [
        ("seed", str(config.seed)),
        ("transfers", str(len(report.statuses))),
        ("worker kills issued", str(report.kills_issued)),
        ("worker deaths observed", str(report.worker_deaths)),
        ("dev server restarts", str(report.restarts)),
        ("injected database faults", str(report.db_faults)),
        ("injected step faults", report.plan.faults),
        ("payees spending all they can", ", ".join(s.payee for s in report.plan.spenders)),
        ("payee spends", str(report.spends)),
        ("sagas parked by spent funds", str(len(report.parked_by_spent_funds))),
        ("wall time", f"{report.wall_seconds:.1f} s"),
    ]
    rows += [
        (check.name, f"{'PASS' if check.ok else 'FAIL'}  {check.detail}") for check in report.checks
    ]
    width = max(len(name) for name, _ in rows)
    lines = [f"{name.ljust(width)}  {value}" for name, value in rows]
    verdict = (
        "chaos run PASSED"
        if report.ok
        else f"chaos run FAILED (reproduce with --seed {config.seed})"
    )
    return "\n".join([*lines, verdict]) + "\n"
