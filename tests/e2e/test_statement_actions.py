"""Statements reach the worker: `fundsaga reconcile import` sends the file to the worker's
statement workflow, which checks the operator's proof, reads the file under the deployment's
limits, writes the rows stamped with its id under the deployment's matching policy, and records
counts. Attackers play the CLI's environment without a token, Temporal access without a token,
and the CLI's database URL; each is refused with nothing written, or found by `ledger verify`.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, insert, select, update
from temporalio.client import WorkflowUpdateFailedError
from temporalio.testing import WorkflowEnvironment

from sagas.audit import AuditRecord, AuditStore
from sagas.engine import OPERATOR_VERIFIED_UPDATE
from sagas.foundations import Money
from sagas.ledger import Ledger
from sagas.reconcile import (
    STATEMENT_ACTION_PREFIX,
    STATEMENT_ACTION_WORKFLOW,
    ReconcilePolicy,
    Reconciliation,
    StatementAct,
    StatementActionRequest,
    StatementOutcome,
    StatementRules,
    StatementUpload,
    metadata,
    policy_facts,
    read_statement,
)
from sagas.testing import dev_identity
from sagas.worker import build_worker
from tests.e2e.conftest import fundsaga
from tests.reconcile.camt_documents import entry, statement

RULES = StatementRules(
    policy=ReconcilePolicy(grace=timedelta(), fees={"EUR": Money.of(25, "EUR")}),
    max_bytes=200_000,
    max_lines=50,
)
"""The deployment's rules, as the worker holds them."""
Worker = Callable[[StatementRules], AbstractAsyncContextManager[None]]


def camt(count: int, tag: str = "") -> bytes:
    """A camt.053 of `count` payouts the ledger never made: each a missing_in_ledger break."""
    tag = tag or uuid.uuid4().hex[:8]
    entries = "".join(
        entry(
            references=f"<AcctSvcrRef>{tag}-{n}</AcctSvcrRef>",
            end_to_end_id=f"{tag}-E2E-{n}",
        )
        for n in range(count)
    )
    return statement(entries)


@pytest.fixture
def worker(
    dev_env: WorkflowEnvironment, cli_task_queue: str, ledger: Ledger, audit_store: AuditStore
) -> Worker:
    """A worker on the CLI's task queue, trusting the kit's identity provider, under `rules`."""

    @asynccontextmanager
    async def running(rules: StatementRules) -> AsyncIterator[None]:
        async with build_worker(
            dev_env.client,
            cli_task_queue,
            ledger,
            audit_store,
            operators=dev_identity().check(),
            statement_rules=rules,
        ):
            yield

    return running


async def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    capsys.readouterr()
    code = await fundsaga(*argv)
    captured = capsys.readouterr()
    return code, captured.out + captured.err


async def verify(capsys: pytest.CaptureFixture[str]) -> tuple[int, list[str]]:
    code, out = await cli(capsys, "ledger", "verify", "-o", "json")
    findings: list[str] = json.loads(out)["findings"]
    return code, findings


def statement_records(store: AuditStore) -> list[AuditRecord]:
    kinds = {str(act.audit_kind) for act in StatementAct}
    return [r for r in store.records() if r.kind in kinds]


def rows(ledger: Ledger, table: str) -> list[dict[str, Any]]:
    with ledger.engine.connect() as connection:
        found = connection.execute(select(metadata.tables[table]))
        return [dict(row._mapping) for row in found]


def count(ledger: Ledger, table: str) -> int:
    with ledger.engine.connect() as connection:
        return connection.scalar(select(func.count()).select_from(metadata.tables[table])) or 0


async def test_an_import_runs_on_the_worker_under_its_policy_and_records_counts(
    worker: Worker,
    ledger: Ledger,
    audit_store: AuditStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    file = tmp_path / "camt053.xml"
    file.write_bytes(camt(3))
    # The importing operator's own tolerances: the worker does not read them.
    monkeypatch.setenv("FUNDSAGA_RECONCILE_FEES", "EUR=9.99")
    monkeypatch.setenv("FUNDSAGA_RECONCILE_GRACE_HOURS", "720")
    async with worker(RULES):
        code, out = await cli(capsys, "reconcile", "import", str(file), "-o", "json")
        (broken, *_) = json.loads((await cli(capsys, "reconcile", "breaks", "-o", "json"))[1])
        explained, _ = await cli(
            capsys, "reconcile", "explain", str(broken["break"]), "--note", "not ours"
        )
        ran, _ = await cli(capsys, "reconcile", "run", "-o", "json")
        verified, findings = await verify(capsys)

    facts = json.loads(out)
    imported, explanation, run = statement_records(audit_store)
    assert (code, explained, ran) == (1, 0, 1)  # 1: breaks are open
    assert (facts["lines"], facts["added"], facts["opened"], facts["new"]) == (3, 3, 3, True)
    assert imported.kind == "statement_imported"
    assert imported.saga_id.startswith(STATEMENT_ACTION_PREFIX)
    assert imported.payload["sha256"] == StatementUpload.of(file.read_bytes(), "f", None).sha256
    assert {key: imported.payload[key] for key in ("lines", "added", "matched", "opened")} == {
        "lines": 3,
        "added": 3,
        "matched": 0,
        "opened": 3,
    }
    assert imported.payload["policy"] == policy_facts(RULES.policy)["policy"]
    policy = imported.payload["policy"]
    assert isinstance(policy, dict)
    assert policy["fees"] == {"EUR": "0.25"}
    assert imported.payload["policy_sha256"] == policy_facts(RULES.policy)["policy_sha256"]
    assert imported.payload["operator"] == explanation.payload["operator"]
    assert (explanation.kind, explanation.payload["break_id"]) == (
        "break_explained",
        broken["break"],
    )
    assert (run.kind, run.payload["opened"]) == ("reconciliation_run", 0)
    assert {r["action_id"] for r in rows(ledger, "statement_line")} == {imported.saga_id}
    assert {r["action_id"] for r in rows(ledger, "reconciliation_break")} == {imported.saga_id}
    assert (verified, findings) == (0, [])


async def test_a_record_stays_small_whatever_the_file_holds(
    worker: Worker, audit_store: AuditStore, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    small, large = tmp_path / "small.xml", tmp_path / "large.xml"
    small.write_bytes(camt(1))
    large.write_bytes(camt(50))
    async with worker(RULES):
        for file in (small, large):
            await cli(capsys, "reconcile", "import", str(file))

    one, fifty = statement_records(audit_store)
    assert (one.payload["opened"], fifty.payload["opened"]) == (1, 50)
    assert set(one.payload) == set(fifty.payload)
    assert abs(len(json.dumps(one.payload)) - len(json.dumps(fifty.payload))) < 20


async def test_statement_rows_written_with_the_clis_database_url_are_findings(
    worker: Worker,
    ledger: Ledger,
    database_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The CLI's environment without a token: its database URL writes a forged camt.053 as the
    old client did (a file, its line, its break), one more line under a genuine action's id
    with a match of it to a payout, and a genuine break's status set to explained."""
    genuine = tmp_path / "genuine.xml"
    genuine.write_bytes(camt(1))
    async with worker(RULES):
        await cli(capsys, "reconcile", "import", str(genuine))
        clean, _ = await verify(capsys)
        (line,) = rows(ledger, "statement_line")

        mallory = Ledger.from_url(database_url)
        forged = camt(1, tag="FORGED")
        Reconciliation(mallory, ()).import_statement(
            read_statement(forged),
            forged,
            name="forged.xml",
            imported_by="mallory",
            action_id="statement-action-import-forged",
        )
        copied = {k: v for k, v in line.items() if k != "line_id"} | {
            "bank_reference": "EXTRA",
            "identity": "EXTRA",
        }
        lines, matches = metadata.tables["statement_line"], metadata.tables["rail_match"]
        with mallory.engine.begin() as connection:
            connection.execute(insert(lines).values(**copied))
            extra = connection.scalar(select(func.max(lines.c.line_id)))
            connection.execute(
                insert(matches).values(
                    line_id=extra,
                    entry_id=999_999,
                    method="reference",
                    matched_at=datetime.now(UTC),
                )
            )
            breaks = metadata.tables["reconciliation_break"]
            (opened,) = connection.scalars(
                select(breaks.c.break_id).where(breaks.c.action_id == line["action_id"])
            )
            connection.execute(
                update(breaks).where(breaks.c.break_id == opened).values(status="explained")
            )
        mallory.close_connections()
        code, findings = await verify(capsys)

    assert clean == 0
    assert code == 1
    assert any(
        "action statement-action-import-forged" in f and "no signed audit record" in f
        for f in findings
    ), findings
    assert any(
        f"action {line['action_id']}: record" in f and "'added': 1" in f and "'added': 2" in f
        for f in findings
    ), findings
    assert any(f"match of statement line {extra} names no operator action" in f for f in findings)
    assert (
        f"reconciliation: break {opened} is explained, but no signed break_explained record says so"
        in findings
    )


async def test_the_cli_without_a_token_imports_nothing(
    worker: Worker,
    ledger: Ledger,
    audit_store: AuditStore,
    dev_env: WorkflowEnvironment,
    cli_task_queue: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The CLI with no token and no identity provider to sign in to; then Temporal access
    without a token, starting the worker's statement workflow with a made-up proof."""
    file = tmp_path / "camt053.xml"
    file.write_bytes(camt(2))
    monkeypatch.setenv("FUNDSAGA_DEV_IDENTITY", str(tmp_path / "no-identity"))
    request = StatementActionRequest(
        act=StatementAct.IMPORT,
        proof="eyJhbGciOiJub25lIn0.eyJzdWIiOiJtYWxsb3J5In0.",
        upload=StatementUpload.of(file.read_bytes(), "camt053.xml", None),
    )
    async with worker(RULES):
        code, out = await cli(capsys, "reconcile", "import", str(file))
        handle = await dev_env.client.start_workflow(
            STATEMENT_ACTION_WORKFLOW,
            request,
            id=f"{STATEMENT_ACTION_PREFIX}forged-{uuid.uuid4().hex}",
            task_queue=cli_task_queue,
            result_type=StatementOutcome,
        )
        with pytest.raises(WorkflowUpdateFailedError):
            await handle.execute_update(OPERATOR_VERIFIED_UPDATE, result_type=str)
        outcome = await handle.result()

    assert code != 0
    assert "OperatorRefusedError: no operator identity" in out
    assert (outcome.facts, outcome.refused_type) == ({}, "OperatorRefusedError")
    assert [count(ledger, t) for t in ("statement_file", "statement_line")] == [0, 0]
    assert statement_records(audit_store) == []


@pytest.mark.parametrize(
    ("client_env", "rules", "named"),
    [
        ({"FUNDSAGA_STATEMENT_MAX_BYTES": "1000"}, RULES, "FUNDSAGA_STATEMENT_MAX_BYTES"),
        ({}, StatementRules(policy=RULES.policy, max_bytes=1000), "FUNDSAGA_STATEMENT_MAX_BYTES"),
        ({}, StatementRules(policy=RULES.policy, max_lines=4), "FUNDSAGA_STATEMENT_MAX_LINES"),
    ],
    ids=["cli-bytes", "worker-bytes", "worker-lines"],
)
async def test_a_statement_over_a_limit_is_refused_naming_it_with_nothing_written(
    worker: Worker,
    ledger: Ledger,
    audit_store: AuditStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    client_env: dict[str, str],
    rules: StatementRules,
    named: str,
) -> None:
    file = tmp_path / "camt053.xml"
    file.write_bytes(camt(5))
    for name, value in client_env.items():
        monkeypatch.setenv(name, value)
    async with worker(rules):
        code, out = await cli(capsys, "reconcile", "import", str(file))

    assert code == 2
    assert named in out
    assert "FILE" in out
    assert [count(ledger, t) for t in ("statement_file", "statement_line")] == [0, 0]
    assert statement_records(audit_store) == []
