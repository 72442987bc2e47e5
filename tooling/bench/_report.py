"""The report as a text table and as JSON."""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

from tooling.bench._contention_plot import write_contention_plot
from tooling.bench._contention_report import contention_table
from tooling.bench._plot import write_plot
from tooling.bench._results import Latency, Report, ScenarioResult

JSON_NAME = "bench.json"


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _lat(latency: Latency | None) -> list[str]:
    if latency is None:
        return ["-", "-", "-"]
    return [_num(latency.p50_ms), _num(latency.p95_ms), _num(latency.p99_ms)]


def _row(result: ScenarioResult, concurrencies: list[str]) -> list[str]:
    if result.status != "ok":
        return [result.name, result.database, result.status]
    return [
        result.name,
        result.database,
        *(_num(result.tput.get(c)) for c in concurrencies),
        *_lat(result.latency_c1),
        _num(result.first_task_ms),
        _num(result.half_rate),
        *_lat(result.latency_half),
        _num(result.history_events, 0),
        _num(result.state_transitions, 0),
        _num(result.worker_cpu_ms_per_saga),
        _num(result.server_cpu_ms_per_saga),
        _num(result.worker_peak_rss_mb, 0),
        str(result.sagas),
        str(result.failures),
    ]


def _aligned(rows: list[list[str]]) -> list[str]:
    full = [r for r in rows if len(r) == len(rows[0])]
    widths = [max(len(r[i]) for r in full) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        if len(row) != len(widths):
            lines.append(f"{row[0]:<{widths[0]}}  {row[1]:>{widths[1]}}  {' '.join(row[2:])}")
            continue
        cells = [row[0].ljust(widths[0])] + [
            c.rjust(w) for c, w in zip(row[1:], widths[1:], strict=True)
        ]
        lines.append("  ".join(cells))
    return lines


def table(report: Report) -> str:
    concurrencies = str(report.conditions["concurrencies"]).split(",")
    header = [
        "scenario",
        "db",
        *(f"tput@{c}/s" for c in concurrencies),
        "p50@1 ms",
        "p95@1",
        "p99@1",
        "task1@1 ms",
        "rate@½/s",
        "p50@½ ms",
        "p95@½",
        "p99@½",
        "events",
        "transitions",
        "wkr CPU ms/saga",
        "srv CPU ms/saga",
        "wkr peak MB",
        "sagas",
        "failed",
    ]
    rows = [header] + [_row(r, concurrencies) for r in report.scenarios]
    codec = "on" if report.conditions.get("knob.codec") else "off"
    scenarios = _aligned(rows) if report.scenarios else []
    lines = [f"fundsaga bench: {report.label} (payload codec {codec})", *scenarios, ""]
    compensate = next((r for r in report.scenarios if r.failure_to_compensated), None)
    if compensate is not None and compensate.failure_to_compensated is not None:
        f = compensate.failure_to_compensated
        lines.append(
            f"failure-to-COMPENSATED (server time, n={f.n}): p50 {f.p50_ms} ms, "
            f"p95 {f.p95_ms} ms, p99 {f.p99_ms} ms"
        )
    for database, found in report.ratios.items():
        if not found:
            continue
        lines.append(f"ratios [{database}]: " + ", ".join(f"{k}={v}" for k, v in found.items()))
    lines.extend(_scaling(report))
    lines.extend(_soaks(report))
    lines.extend(contention_table(report.contention, report.contention_s))
    lines.extend(_features(report))
    lines.extend(targets_block(report))
    lines.extend(f"note: {note}" for note in report.notes)
    lines.append("conditions: " + "; ".join(f"{k}={v}" for k, v in report.conditions.items()))
    return "\n".join(lines)


def targets_block(report: Report) -> list[str]:
    """One line per target: status, name, value, threshold."""
    if not report.targets:
        return []
    lines = ["targets (median of per-repetition ratios; met / NOT MET / not measured):"]
    width = max(len(t.status) for t in report.targets)
    for t in report.targets:
        value = "-" if t.value is None else str(t.value)
        note = f"  ({t.note})" if t.note else ""
        lines.append(f"  {t.status:<{width}}  {t.name} = {value}, wanted {t.wanted}{note}")
    return lines


def _features(report: Report) -> list[str]:
    """Each engine feature's CPU over BARE's, beside what the operator gets for it."""
    if not report.features:
        return []
    header = ["feature", "srv ms/saga", "over BARE", "wkr ms/saga", "over BARE", "events", "+"]
    rows = [header] + [
        [
            c.feature,
            _num(c.server_cpu_ms_per_saga, 2),
            _num(c.server_ms_over_bare, 2),
            _num(c.worker_cpu_ms_per_saga, 2),
            _num(c.worker_ms_over_bare, 2),
            str(c.history_events),
            str(c.events_over_bare),
        ]
        for c in report.features
    ]
    lines = ["Server CPU by engine feature (BARE plus one feature, alternating blocks):"]
    lines += _aligned(rows)
    lines += [f"  {c.feature}: {c.operator_gets}" for c in report.features if c.operator_gets]
    return lines


def _scaling(report: Report) -> list[str]:
    return [
        f"scaling [postgresql]: {p.processes} worker processes, {p.tput} sagas/s over {p.sagas}, "
        f"worker CPU ms/saga {p.worker_cpu_ms_per_saga}, server {p.server_cpu_ms_per_saga}, "
        f"failures {p.failures}"
        for p in report.scaling
    ]


def _soaks(report: Report) -> list[str]:
    return [
        f"soak {s.scenario}: {s.transfers} transfers, RSS {s.rss_after_warmup_mb} MB after "
        f"{s.warmup}, max {s.rss_max_after_warmup_mb} MB, end {s.rss_end_mb} MB, growth "
        f"{s.growth_mb} MB, failures {s.failures}"
        for s in report.soaks
    ]


def write_json(report: Report, directory: Path) -> Path:
    path = directory / JSON_NAME
    path.write_text(json.dumps(asdict(report), indent=2, ensure_ascii=False) + "\n")
    return path


def write_outputs(report: Report, directory: Path) -> list[Path]:
    """The JSON, and the PNGs where matplotlib is installed; returns the files written."""
    directory.mkdir(parents=True, exist_ok=True)
    report.plot = write_plot(report, directory)
    if report.plot is not None:
        report.contention_plot = write_contention_plot(report.contention, directory, report.label)
    written = [write_json(report, directory)]
    written += [directory / png for png in (report.plot, report.contention_plot) if png]
    return written
