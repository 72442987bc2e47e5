"""What every run of the contention shapes must show, whatever its sizes: no speed, only that
both rates exist, nothing was lost and the hot accounts were the busiest."""

from __future__ import annotations

from typing import Any

SHAPES = ["spread", "hot-source", "hot-destination", "hot-pair"]
HOT = {
    "hot-source": {"hot-src"},
    "hot-destination": {"hot-dst"},
    "hot-pair": {"hot-src", "hot-dst"},
}


def check_shapes(shapes: list[dict[str, Any]], database: str) -> None:
    found = [s for s in shapes if s["database"] == database]
    assert [s["shape"] for s in found] == SHAPES
    for shape in found:
        sagas = shape["sagas"]
        assert sagas > 0
        assert shape["accepted_per_s"] > 0
        assert shape["applied_per_s"] > 0
        assert 0 < shape["latency"]["p50_ms"] <= shape["latency"]["p95_ms"]
        assert shape["statuses"] == {"COMPLETED": sagas}
        assert shape["journal_applied"] == sagas
        assert shape["invariant_findings"] == []
        if shape["shape"] in HOT:
            assert shape["busiest_account"] in HOT[shape["shape"]]
            assert shape["busiest_sagas"] == sagas
        else:
            assert shape["busiest_sagas"] < sagas
