"""What a ledger append run measures, the ratios its targets need, and its text and JSON."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

from tooling.bench._ledger_append_writer import Result, Route, Shape, Spec

WRITERS_SIGNED = "writers, signed"
WRITERS_UNSIGNED = "writers, tamper evidence off"
SHAPES = "contention shapes"
PROCESSES = "processes"
TITLES = {
    WRITERS_SIGNED: "Writers, signed: a transfer is 2 entries, customer -> @clearing:EUR -> other",
    WRITERS_UNSIGNED: "Writers, tamper evidence off (no signer), otherwise the same",
    SHAPES: "Contention shapes, signed, customer -> customer (1 entry a transfer)",
    PROCESSES: "Processes, one writer thread each, signed, through clearing",
}
COST_TITLE = "Cost per entry, 1 writer process (user+sys CPU of the writer process)"
RATIOS_TITLE = "Ratios"
TREES = ("baseline", "current")


@dataclass(frozen=True)
class Measurement:
    table: str
    row: str
    spec: Spec


@dataclass(frozen=True)
class Ratio:
    name: str
    target: float
    """At least this much."""
    values: dict[str, float | None]
    """Per tree: the ratio, or None when the figure under it is 0."""


def plan(
    base: Spec, writers: Sequence[int], processes: int, shape_writers: int
) -> list[Measurement]:
    """Every measurement of a run, in order; `base` gives the server and the window."""

    def spec(count: int, route: Route, shape: Shape, signed: bool, procs: int) -> Spec:
        return replace(
            base, writers=count, processes=procs, route=route, shape=shape, signed=signed
        )

    def spread(count: int, signed: bool) -> Spec:
        return spec(count, Route.CLEARING, Shape.SPREAD, signed, min(count, processes))

    def contended(shape: Shape) -> Spec:
        procs = min(shape_writers, processes)
        return spec(shape_writers, Route.DIRECT, shape, True, procs)

    return [
        *(Measurement(WRITERS_SIGNED, str(w), spread(w, True)) for w in writers),
        *(Measurement(WRITERS_UNSIGNED, str(w), spread(w, False)) for w in writers),
        *(Measurement(SHAPES, shape.value, contended(shape)) for shape in Shape),
        *(
            Measurement(PROCESSES, str(p), spec(p, Route.CLEARING, Shape.SPREAD, True, p))
            for p in (1, 2)
        ),
    ]


@dataclass(frozen=True)
class Figures:
    versions: dict[str, str]
    """Per tree measured ('baseline', 'current'), the version of its code."""
    measurements: list[Measurement]
    results: dict[str, dict[Spec, list[Result]]]
    """Per tree, each round's result of each spec (a spec two tables share is measured once)."""
    loads: list[float]
    """The machine's 1-minute load average after each measurement."""

    def result(self, tree: str, table: str, row: str) -> Result:
        return best(self.results[tree][self.spec(table, row)])

    def spec(self, table: str, row: str) -> Spec:
        return next(m.spec for m in self.measurements if (m.table, m.row) == (table, row))

    def rate(self, tree: str, table: str, row: str) -> float:
        return self.result(tree, table, row).rate

    def rows(self, table: str) -> list[str]:
        return [m.row for m in self.measurements if m.table == table]

    def ratios(self) -> list[Ratio]:
        most = max(self.rows(WRITERS_SIGNED), key=int)

        def at_most_over_best(table: str) -> Callable[[str], tuple[float, float]]:
            def parts(tree: str) -> tuple[float, float]:
                best = max(self.rate(tree, table, row) for row in self.rows(table))
                return self.rate(tree, table, most), best

            return parts

        return [
            self._ratio(f"signed: {most} writers / best", 0.9, at_most_over_best(WRITERS_SIGNED)),
            self._ratio(
                f"unsigned: {most} writers / best", 0.9, at_most_over_best(WRITERS_UNSIGNED)
            ),
            self._ratio(
                f"signed / unsigned at {most} writers",
                0.8,
                lambda t: (
                    self.rate(t, WRITERS_SIGNED, most),
                    self.rate(t, WRITERS_UNSIGNED, most),
                ),
            ),
            self._ratio(
                "2 processes / 1 process",
                1.7,
                lambda t: (self.rate(t, PROCESSES, "2"), self.rate(t, PROCESSES, "1")),
            ),
        ]

    def _ratio(
        self, name: str, target: float, parts: Callable[[str], tuple[float, float]]
    ) -> Ratio:
        values: dict[str, float | None] = {}
        for tree in self.versions:
            top, bottom = parts(tree)
            values[tree] = top / bottom if bottom else None
        return Ratio(name, target, values)


def best(rounds: Sequence[Result]) -> Result:
    """The round of highest throughput: other work on the machine only ever slows one down."""
    return max(rounds, key=lambda result: result.rate)


def text(figures: Figures) -> str:
    trees = list(figures.versions)
    per_s = [f"{tree} entries/s" for tree in trees]
    blocks = [", ".join(f"{tree} {version}" for tree, version in figures.versions.items())]
    for table in (WRITERS_SIGNED, WRITERS_UNSIGNED, PROCESSES):
        first = "processes" if table == PROCESSES else "writers"
        rows = [
            [row, *(f"{figures.rate(t, table, row):.0f}" for t in trees)]
            for row in figures.rows(table)
        ]
        blocks.append(_table(TITLES[table], [first, *per_s], rows))
    blocks.append(_shapes(figures, trees))
    blocks.append(_cost(figures, trees))
    ratio_rows = [
        [r.name, f">= {r.target}", *("-" if v is None else f"{v:.2f}" for v in r.values.values())]
        for r in figures.ratios()
    ]
    blocks.append(_table(RATIOS_TITLE, ["ratio", "target", *trees], ratio_rows))
    checked = sum(
        len(rounds) for by_spec in figures.results.values() for rounds in by_spec.values()
    )
    blocks.append(
        f"Every ledger measured ({checked}) checked sound: check_invariants() == []\n"
        f"Load average (1 min) after the measurements: {min(figures.loads):.1f} to "
        f"{max(figures.loads):.1f}, on {os.cpu_count()} cores"
    )
    return "\n\n".join(blocks) + "\n"


def _shapes(figures: Figures, trees: list[str]) -> str:
    writers = figures.spec(SHAPES, Shape.SPREAD.value).writers
    rows = []
    for row in figures.rows(SHAPES):
        results = [figures.result(t, SHAPES, row) for t in trees]
        busiest = ", ".join(sorted({r.busiest_account for r in results}))
        rows.append(
            [
                row,
                *(f"{r.rate:.0f}" for r in results),
                busiest,
                *(f"{r.busiest_entries / r.seconds:.0f}" for r in results),
            ]
        )
    header = [
        f"{writers} writers",
        *(f"{t} entries/s" for t in trees),
        "busiest account",
        *(f"{t} its entries/s" for t in trees),
    ]
    return _table(TITLES[SHAPES], header, rows)


def _cost(figures: Figures, trees: list[str]) -> str:
    results = [figures.result(t, PROCESSES, "1") for t in trees]

    def per_entry(seconds: float, entries: int) -> str:
        return f"{1000 * seconds / entries:.2f}" if entries else "-"

    rows = [
        ["CPU ms/entry", *(per_entry(r.cpu_seconds, r.entries) for r in results)],
        ["wall ms/entry", *(per_entry(r.seconds, r.entries) for r in results)],
    ]
    return _table(COST_TITLE, ["", *trees], rows)


def _table(title: str, header: list[str], rows: list[list[str]]) -> str:
    """The first column left-aligned, the figures right-aligned."""
    widths = [max(len(line[i]) for line in (header, *rows)) for i in range(len(header))]

    def aligned(line: list[str]) -> str:
        first, *rest = zip(line, widths, strict=True)
        cells = [first[0].ljust(first[1]), *(cell.rjust(width) for cell, width in rest)]
        return "  ".join(cells).rstrip()

    return "\n".join([title, *(aligned(line) for line in (header, *rows))])


def as_json(figures: Figures) -> dict[str, Any]:
    """Every figure; a tree not measured (no baseline asked for) is null."""

    def result(tree: str, spec: Spec) -> dict[str, Any] | None:
        rounds = figures.results.get(tree, {}).get(spec)
        if rounds is None:
            return None
        return {**asdict(best(rounds)), "round_rates": [r.rate for r in rounds]}

    return {
        "versions": {tree: figures.versions.get(tree) for tree in TREES},
        "measurements": [
            {
                "table": m.table,
                "row": m.row,
                "spec": {k: v for k, v in asdict(m.spec).items() if k != "server_url"},
                **{tree: result(tree, m.spec) for tree in TREES},
            }
            for m in figures.measurements
        ],
        "ratios": [
            {"name": r.name, "target": r.target, **{tree: r.values.get(tree) for tree in TREES}}
            for r in figures.ratios()
        ],
        "load_averages": figures.loads,
    }
