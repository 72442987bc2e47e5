"""`fundsaga reconcile import` accounts for every line of the file, through the worker: per
statement, lines read = new + already known (in which earlier file) + refused (why), in the
CLI's output and in the audit record; the test counts each file's `<Ntry>` elements itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sagas.audit import AuditStore
from sagas.reconcile import BreakKind
from tests.e2e.test_statement_actions import (
    RULES,
    Worker,
    cli,
    statement_records,
    verify,
    worker,
)
from tests.reconcile.test_line_accounting import camt, entries_in, referenced, unreferenced

__all__ = ["worker"]  # the fixture, used by name


def accounted(statement: dict[str, Any]) -> int:
    new, known, refused = (statement[what] for what in ("new", "known", "refused"))
    assert isinstance(new, int)
    assert isinstance(known, int)
    assert isinstance(refused, int)
    return new + known + refused


async def test_every_line_of_each_import_is_accounted_for_in_the_output_and_the_record(
    worker: Worker,
    audit_store: AuditStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    day = [referenced("BNK-1", "100.00"), unreferenced("2.50"), unreferenced("0.00", "CRDT")]
    first, again, corrected = (tmp_path / name for name in ("d.xml", "d2.xml", "d3.xml"))
    first.write_bytes(camt(day))
    again.write_bytes(camt([*day, unreferenced("99.99")]))
    corrected.write_bytes(camt([referenced("BNK-1", "120.00"), *day[1:]], copy="CORR"))
    async with worker(RULES):
        outputs = [
            (await cli(capsys, "reconcile", "import", str(file), "-o", "json"))[1]
            for file in (first, again)
        ]
        code, table = await cli(capsys, "reconcile", "import", str(corrected))
        (_, listed) = await cli(capsys, "reconcile", "breaks", "-o", "json")
        verified, findings = await verify(capsys)

    one, two = (json.loads(out)["statements"][0] for out in outputs)
    records = statement_records(audit_store)
    three: Any = records[2].payload["statements"]
    (third,) = three
    counted = [entries_in(file.read_bytes()) for file in (first, again, corrected)]
    assert [s["read"] for s in (one, two, third)] == counted
    assert [accounted(s) for s in (one, two, third)] == counted
    assert (one["new"], one["zero_amount"]) == (3, 1)
    assert (two["new"], two["known"], two["known_in"]) == (
        1,
        3,
        [{"file_id": 1, "name": "d.xml", "lines": 3}],
    )
    assert (third["new"], third["known"], third["refused"]) == (0, 2, 1)
    assert third["copy_indicator"] == "CORR"
    [conflict] = [b for b in json.loads(listed) if b["kind"] == BreakKind.STATEMENT_CONFLICT]
    assert third["refusals"] == [
        {
            "position": 1,
            "reason": third["refusals"][0]["reason"],
            "break_id": conflict["break"],
        }
    ]
    assert "3 line(s) read = 0 new + 2 already known + 1 refused" in table
    assert "2 in file 1 (d.xml)" in table
    assert "line 1 refused: conflict: bank reference BNK-1" in table
    assert code == 1  # breaks are open: the conflict among them
    assert records[1].payload["accounted"] == {"read": 4, "new": 1, "known": 3, "refused": 0}
    assert (verified, findings) == (0, [])
