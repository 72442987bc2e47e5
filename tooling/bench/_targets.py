"""The performance issue's targets, each reported as met, NOT MET or not measured."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tooling.bench._results import ScalingPoint, ScenarioResult, Soak, Target, TargetStatus

SOAK_GROWTH_LIMIT_MB = 50
SOAK_FULL_SIZE = 10_000
TIME_LIMIT_S = 20 * 60
ADD_ONS = ("ENGINE-NOSIGN", "ENGINE-NOANCHOR", "ENGINE-NOMETRICS")
IN_THE_ENGINE = ("snapshots", "launch fence")
"""Add-ons that live inside sagas/engine: no switch without an engine change."""


@dataclass(frozen=True, kw_only=True)
class Measured:
    """What the targets are read from."""

    ratios: dict[str, dict[str, float]]
    scenarios: Sequence[ScenarioResult]
    concurrencies: tuple[int, ...]
    soaks: Sequence[Soak]
    scaling: Sequence[ScalingPoint]
    elapsed_s: float
    full_extras_s: float = 0.0
    """Time of the soaks and the scaling run (`--full`), which the time target leaves out."""


def _check(name: str, value: float | None, wanted: str, ok: bool, note: str = "") -> Target:
    if value is None:
        return Target(name=name, wanted=wanted, value=None, met=False, note=note)
    status = TargetStatus.MET if ok else TargetStatus.NOT_MET
    return Target(name=name, wanted=wanted, value=value, met=ok, status=status, note=note)


def at_least(name: str, value: float | None, limit: float, note: str = "") -> Target:
    return _check(name, value, f">= {limit}", value is not None and value >= limit, note)


def at_most(name: str, value: float | None, limit: float, note: str = "") -> Target:
    return _check(name, value, f"<= {limit}", value is not None and value <= limit, note)


def _reported(name: str, value: float | None, status: TargetStatus, note: str = "") -> Target:
    return Target(name=name, wanted="-", value=value, met=False, status=status, note=note)


def targets(m: Measured) -> list[Target]:
    listed: list[Target] = []
    for database, found in m.ratios.items():
        listed += _engine_vs_naive(found, database, m.concurrencies)
        listed += _local_vs_bare_local(found, database, m.concurrencies)
    listed += _against_dbos(m)
    listed.append(_postgresql(m))
    listed.append(_scaling(m.scaling))
    listed += _soaks(m.soaks)
    listed.append(_run_time(m))
    return listed


def _run_time(m: Measured) -> Target:
    """What `make bench` takes: with FULL=1, the run less its soaks and scaling run."""
    if not m.full_extras_s:
        return at_most("7. run time s", round(m.elapsed_s, 1), TIME_LIMIT_S)
    note = f"FULL's soaks and scaling, {m.full_extras_s:.0f} s more, not counted"
    spent = round(m.elapsed_s - m.full_extras_s, 1)
    return at_most("7. run time s", spent, TIME_LIMIT_S, note)


def _engine_vs_naive(found: dict[str, float], db: str, cs: tuple[int, ...]) -> list[Target]:
    listed = [
        at_least(f"1. ENGINE/NAIVE tput@{c} [{db}]", found.get(f"ENGINE/NAIVE tput@{c}"), 1.0)
        for c in cs
    ]
    for variant in ADD_ONS:
        key = f"ENGINE/{variant} tput@{cs[0]}"
        status = TargetStatus.REPORTED if key in found else TargetStatus.NOT_MEASURED
        listed.append(_reported(f"1. cost: {key} [{db}]", found.get(key), status))
    for add_on in IN_THE_ENGINE:
        listed.append(
            _reported(f"1. cost of the {add_on} [{db}]", None, TargetStatus.NOT_SWITCHABLE)
        )
    return listed


def _local_vs_bare_local(found: dict[str, float], db: str, cs: tuple[int, ...]) -> list[Target]:
    listed = [
        at_least(f"2. {key} [{db}]", found.get(key), 0.9)
        for key in (f"ENGINE-LOCAL/BARE-LOCAL tput@{c}" for c in cs)
    ]
    p50 = "ENGINE-LOCAL/BARE-LOCAL p50@1"
    listed.append(at_most(f"2. {p50} [{db}]", found.get(p50), 1.3))
    return listed


def _result(m: Measured, name: str, database: str) -> ScenarioResult | None:
    found = [r for r in m.scenarios if r.name == name and r.database == database]
    return found[0] if found and found[0].status == "ok" else None


NOT_INTERLEAVED = "medians of DBOS's phase after the Temporal sessions: not interleaved"
"""Said on each target-3 line: the machine's drift between the phases is in the ratio."""


def _against_dbos(m: Measured) -> list[Target]:
    """DBOS runs after the Temporal phases (not interleaved): a ratio of medians."""
    dbos, local = _result(m, "DBOS", "sqlite"), _result(m, "ENGINE-LOCAL", "sqlite")
    note = (
        NOT_INTERLEAVED
        if dbos and local
        else "DBOS off, not installed or failed, or no SQLite session"
    )
    listed: list[Target] = []
    for c in m.concurrencies:
        value = None
        if dbos and local and dbos.tput.get(str(c)):
            value = round(local.tput[str(c)] / dbos.tput[str(c)], 3)
        listed.append(at_least(f"3. ENGINE-LOCAL/DBOS tput@{c} [sqlite]", value, 0.8, note))
    value = None
    if dbos and local and dbos.latency_c1 and local.latency_c1:
        value = round(local.latency_c1.p50_ms / dbos.latency_c1.p50_ms, 3)
    listed.append(at_most("3. ENGINE-LOCAL/DBOS p50@1 [sqlite]", value, 2.0, note))
    return listed


def _postgresql(m: Measured) -> Target:
    on_pg = [r for r in m.scenarios if r.database == "postgresql"]
    name = "4. every scenario on PostgreSQL, no failure"
    if not on_pg:
        return _check(name, None, "all", False, "run with --database postgresql or both")
    ok = all(r.status == "ok" and r.failures == 0 for r in on_pg)
    return _check(name, float(len(on_pg)), "all", ok, "value: scenarios run")


def _scaling(points: Sequence[ScalingPoint]) -> Target:
    name = "5. process scaling [postgresql]: tput with most processes / with 1"
    if not points:
        return _reported(name, None, TargetStatus.NOT_MEASURED, "make bench FULL=1")
    first, last = points[0], points[-1]
    note = ", ".join(f"{p.processes} proc {p.tput}/s" for p in points)
    value = round(last.tput / first.tput, 3) if first.tput else None
    return _reported(name, value, TargetStatus.REPORTED, note)


def _soaks(soaks: Sequence[Soak]) -> list[Target]:
    if not soaks:
        return [
            _check(
                f"6. soak {name}: RSS growth MB",
                None,
                f"< {SOAK_GROWTH_LIMIT_MB}",
                False,
                "make bench FULL=1",
            )
            for name in ("ENGINE", "ENGINE-LOCAL")
        ]
    return [
        _check(
            f"6. soak {s.scenario}: RSS growth MB",
            s.growth_mb,
            f"< {SOAK_GROWTH_LIMIT_MB} over {SOAK_FULL_SIZE}",
            s.growth_mb < SOAK_GROWTH_LIMIT_MB and s.transfers >= SOAK_FULL_SIZE,
            f"{s.transfers} transfers",
        )
        for s in soaks
    ]
