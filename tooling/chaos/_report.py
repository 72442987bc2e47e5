"""The figures of a chaos run as a table."""

from __future__ import annotations

from collections import Counter

from sagas.payouts import PAYOUT_BATCH
from tooling.chaos._catalog import Beneficiary
from tooling.chaos._check import Check
from tooling.chaos._runner import ChaosReport


def counts_by_type(report: ChaosReport) -> dict[str, Counter[str]]:
    """Per saga type (in the plan's order of types), how many ended in each status."""
    counts: dict[str, Counter[str]] = {name: Counter() for name in report.plan.config.counts()}
    for saga in report.plan.sagas:
        counts[saga.saga_type][report.statuses.get(saga.saga_id, "NOT STARTED")] += 1
    return counts


def batch_items_by_status(report: ChaosReport) -> Counter[str]:
    return Counter(
        report.statuses.get(item.saga_id, "NOT STARTED") for item in report.plan.batch_items()
    )


def payouts_by_beneficiary(report: ChaosReport) -> dict[str, Counter[str]]:
    """Per simulator behaviour (the payout's beneficiary), how many payouts ended in each status,
    the batches' items among them."""
    counts: dict[str, Counter[str]] = {b.value: Counter() for b in Beneficiary}
    for saga in report.plan.payouts():
        status = report.statuses.get(saga.saga_id, "NOT STARTED")
        counts[str(saga.request["beneficiary"])][status] += 1
    return counts


def _tally(counts: Counter[str]) -> str:
    return f"{sum(counts.values())}: " + ", ".join(f"{s} {n}" for s, n in sorted(counts.items()))


def _outage(report: ChaosReport) -> str:
    return (
        f"{report.outage_seconds:.1f} s, {report.outage_kind}" if report.outage_seconds else "none"
    )


def _verdict(check: Check) -> str:
    if check.skipped:
        return f"SKIP  {check.detail}; {check.skipped}"
    return f"{'PASS' if check.ok else 'FAIL'}  {check.detail}"


def render(report: ChaosReport) -> str:
    config = report.plan.config
    rows = [("seed", str(config.seed)), ("sagas", str(len(report.statuses)))]
    rows += [(f"  {name}", _tally(c)) for name, c in counts_by_type(report).items()]
    rows += [(f"    {PAYOUT_BATCH} items", _tally(batch_items_by_status(report)))]
    rows += [
        (f"    payouts and items to {name}", _tally(c))
        for name, c in payouts_by_beneficiary(report).items()
    ]
    rows += [
        ("worker kills issued", str(report.kills_issued)),
        ("worker deaths observed", str(report.worker_deaths)),
        ("dev server restarts", str(report.restarts)),
        ("injected database faults", str(report.db_faults)),
        ("database outage", _outage(report)),
        ("sagas terminated from outside", str(len(report.terminated))),
        ("injected step faults", report.plan.faults),
        ("payees spending all they can", ", ".join(s.payee for s in report.plan.spenders)),
        ("payee spends", str(report.spends)),
        ("sagas parked by spent funds", str(len(report.parked_by_spent_funds))),
        ("wall time", f"{report.wall_seconds:.1f} s"),
    ]
    rows += [(check.name, _verdict(check)) for check in report.checks]
    width = max(len(name) for name, _ in rows)
    lines = [f"{name.ljust(width)}  {value}" for name, value in rows]
    verdict = (
        "chaos run PASSED"
        if report.ok
        else f"chaos run FAILED (reproduce with --seed {config.seed})"
    )
    return "\n".join([*lines, verdict]) + "\n"
