"""`fundsaga audit ...` on a real run: clean, then with planted discrepancies."""

from __future__ import annotations

import asyncio
import json
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus, parse_faults
from sagas.audit import GENESIS_HASH, AuditRecord, AuditStore, open_audit_store
from sagas.audit._record import seal
from sagas.client import FundsagaClient
from sagas.ledger import Ledger
from sagas.testing import dev_identity, freeze_by_operator
from sagas.verify import audit_saga
from sagas.verify.witness import _temporal_histories as temporal_histories
from sagas.worker import build_worker
from tests.e2e._fast import FastTransferWorkflow
from tests.e2e.conftest import TemporalCli, eur, fundsaga
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER

pytestmark = pytest.mark.long

FAST = {"transfer": "FastTransferWorkflow"}


async def run_transfers(
    env: WorkflowEnvironment, queue: str, ledger: Ledger, store: AuditStore, faults: str
) -> list[str]:
    """One completed, one compensated after a business error (carol is frozen by an operator
    first), one after exhausted retries."""
    async with build_worker(
        env.client,
        queue,
        ledger,
        store,
        parse_faults(faults),
        workflows=[FastTransferWorkflow],
        operators=dev_identity().check(),
    ):
        await freeze_by_operator(env.client, queue, "carol")
        # No ledger: the transfer to frozen carol is refused by its step, not before its start.
        client = FundsagaClient(env.client, queue, workflow_types=FAST)
        keys = []
        for destination in ("bob", "carol", "erin"):
            key = f"audit-{destination}-{uuid.uuid4().hex[:8]}"
            await client.start(
                "transfer",
                {
                    "idempotency_key": key,
                    "source_account": "alice",
                    "destination_account": destination,
                    "amount": "10.00",
                    "currency": "EUR",
                },
            )
            keys.append(key)
        outcomes = [await client.saga("transfer", k).outcome() for k in keys]
    assert [o.status for o in outcomes] == [
        SagaStatus.COMPLETED,
        SagaStatus.COMPENSATED,
        SagaStatus.COMPENSATED,
    ]
    return [o.saga_id for o in outcomes]


@pytest.fixture
async def audited_run(
    dev_env: WorkflowEnvironment, cli_task_queue: str, funded_by_two: Ledger, tmp_path: Path
) -> tuple[list[str], AuditStore]:
    funded = funded_by_two
    funded.open_account("erin", "EUR")
    store = open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    sagas = await run_transfers(dev_env, cli_task_queue, funded, store, "settle=transient@erin")
    return sagas, store


async def test_a_clean_run_passes_the_compensation_audit(
    audited_run: tuple[list[str], AuditStore], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (_, business, exhausted), _ = audited_run
    code = await fundsaga("audit", "compensations", "--output", "json")
    report = json.loads(capsys.readouterr().out)
    html_code = await fundsaga(
        "audit", "compensations", "--output", "html", "--file", str(tmp_path / "r.html")
    )

    assert code == 0
    assert report["findings"] == []
    assert report["chains"]["audit"]["ok"] is True
    audited = {row["saga_id"]: row for row in report["sagas"]}
    assert set(audited) == {business, exhausted}
    assert audited[business]["failed_step"] == "credit"
    assert audited[exhausted]["failed_step"] == "settle"
    assert all(
        r["verdict"] == {"ok": True, "reason": "net effect zero on every account"}
        for r in audited.values()
    )
    assert html_code == 0
    assert "Compensation audit: no findings" in (tmp_path / "r.html").read_text()
    assert await fundsaga("audit", "verify") == 0


DROP_POSTING_GUARD = {
    "sqlite": "DROP TRIGGER posting_no_update",
    "postgresql": "DROP TRIGGER posting_refuse_change ON posting",
}
"""What a database owner can do first: the triggers refuse the change to anyone else.

The tests run it as the owner: the worker role the application connects as may not."""


async def test_a_journal_row_changed_outside_the_engine_is_a_finding(
    audited_run: tuple[list[str], AuditStore],
    database_owner_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    (_, business, _), _ = audited_run
    engine = create_engine(database_owner_url)
    with engine.begin() as connection:
        connection.execute(text(DROP_POSTING_GUARD[connection.dialect.name]))
        connection.execute(
            text(
                "UPDATE posting SET amount = amount + 1 WHERE posting_id = ("
                " SELECT MIN(p.posting_id) FROM posting p JOIN journal_entry e"
                " ON e.entry_id = p.entry_id WHERE e.saga_id = :saga AND e.kind = 'reversal')"
            ),
            {"saga": business},
        )
    engine.dispose()

    code = await fundsaga("audit", "compensations")
    out = capsys.readouterr().out

    assert code == 1
    assert "FINDING" in out
    assert f"{business}: compensated but" in out


async def test_a_saga_without_its_audit_record_is_a_finding(
    dev_env: WorkflowEnvironment,
    audited_run: tuple[list[str], AuditStore],
    cli_task_queue: str,
    funded_by_two: Ledger,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    funded = funded_by_two
    elsewhere = open_audit_store(f"dir:{tmp_path / 'elsewhere'}", TEST_KEYS)
    async with build_worker(dev_env.client, cli_task_queue, funded, elsewhere):
        client = FundsagaClient(dev_env.client, cli_task_queue)  # carol's step refuses, not it
        key = f"lost-{uuid.uuid4().hex[:8]}"
        await client.start(
            "transfer",
            {
                "idempotency_key": key,
                "source_account": "alice",
                "destination_account": "carol",
                "amount": "5.00",
                "currency": "EUR",
            },
        )
        lost = (await client.saga("transfer", key).outcome()).saga_id
    for _ in range(50):
        code = await fundsaga("audit", "compensations")
        out = capsys.readouterr().out
        if code == 1:
            break
        await asyncio.sleep(0.2)

    assert code == 1
    assert f"{lost}: Temporal shows COMPENSATED but no audit record exists" in out


async def test_a_deleted_tail_is_found_by_temporal_s_witness_and_by_a_checkpoint(
    audited_run: tuple[list[str], AuditStore],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    checkpoint = tmp_path / "head.json"
    assert await fundsaga("audit", "checkpoint", "--file", str(checkpoint)) == 0
    files = sorted((tmp_path / "audit").glob("*.json"))
    last = files[-1]
    last.chmod(0o644)
    last.unlink()
    capsys.readouterr()

    plain = await fundsaga("audit", "verify")
    against = await fundsaga("audit", "verify", "--checkpoint", str(checkpoint))
    out = capsys.readouterr().out

    assert plain == 1
    assert f"record {len(files)} of " in out
    assert "is in Temporal's history but not in the audit store" in out
    assert against == 1
    assert f"BROKEN at sequence {len(files)}" in out


async def test_a_record_for_a_saga_that_never_ran_is_a_finding_even_when_signed(
    audited_run: tuple[list[str], AuditStore], capsys: pytest.CaptureFixture[str]
) -> None:
    """Made with the signing key itself, so only the sources can tell it from the truth."""
    _, store = audited_run
    forged = store.append(
        kind="terminal",
        saga_id="transfer-forged",
        dedupe_key="transfer-forged:terminal",
        payload={
            "saga_id": "transfer-forged",
            "status": "COMPENSATED",
            "input": {"amount": "999.00", "currency": "EUR"},
            "compensations": [],
        },
    )
    capsys.readouterr()

    code = await fundsaga("audit", "compensations", "--output", "json")
    report = json.loads(capsys.readouterr().out)

    assert code == 1
    assert (
        f"transfer-forged: record {forged.sequence} names a saga that Temporal does not know "
        "and that left no trace in the ledger"
    ) in report["findings"]


def compensated_hold_of_ten(funded: Ledger, saga_id: str, recorded_amount: str) -> AuditRecord:
    """A voided 10.00 EUR hold in the ledger, and the terminal record that names the request's
    amount as `recorded_amount`."""
    funded.place_hold(f"{saga_id}:reserve:action", "alice", eur("10.00"), saga_id=saga_id)
    funded.void_hold(f"{saga_id}:reserve:action", saga_id=saga_id)
    return seal(
        sequence=1,
        recorded_at=datetime.now(UTC),
        kind="terminal",
        saga_id=saga_id,
        dedupe_key=f"{saga_id}:terminal",
        payload={"status": "COMPENSATED", "input": {"amount": recorded_amount, "currency": "EUR"}},
        prev_hash=GENESIS_HASH,
        signer=TEST_SIGNER,
    )


def test_the_amount_comes_from_the_ledger_and_a_record_that_disagrees_is_a_finding(
    funded: Ledger,
) -> None:
    line = audit_saga(funded, compensated_hold_of_ten(funded, "transfer-k", "999.00"))

    assert line.amount == "10.00 EUR"
    assert line.finding == "transfer-k: record 1 says 999.00 EUR, the ledger moved 10.00 EUR"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)  # the dev server deletes slowly
async def test_a_saga_whose_history_temporal_deleted_is_proven_from_record_and_ledger(
    audited_run: tuple[list[str], AuditStore],
    temporal: TemporalCli,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """As Temporal deletes a history once the namespace's retention has passed: the saga's
    entries and records are then covered by anchors taken before the retention ended (the
    witness is told it is over, so the anchors taken now are before its end)."""
    monkeypatch.setattr(temporal_histories, "namespace_retention", retention_passed)
    (_, business, _), _ = audited_run
    assert await fundsaga("audit", "anchor") == 0
    deleted = await temporal("workflow", "delete", "--yes", "--workflow-id", business)
    assert deleted.returncode == 0, deleted.stderr
    await until_deleted(temporal, business)
    capsys.readouterr()

    code = await fundsaga("audit", "compensations", "--output", "json")
    report = json.loads(capsys.readouterr().out)

    rows = {row["saga_id"]: row for row in report["sagas"]}
    assert code == 0, report["findings"]
    assert rows[business]["verdict"]["reason"] == (
        "net effect zero on every account; "
        "history no longer in Temporal: proven from the signed record and the ledger"
    )


async def retention_passed(temporal: Client) -> timedelta:
    return timedelta(0)


async def until_deleted(temporal: TemporalCli, workflow_id: str) -> None:
    for _ in range(600):
        described = await temporal("workflow", "describe", "--workflow-id", workflow_id)
        if described.returncode != 0:
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"{workflow_id} was not deleted")


async def test_ledger_verify_passes_a_real_run_and_finds_a_posting_changed_by_an_owner(
    audited_run: tuple[list[str], AuditStore],
    database_owner_url: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert await fundsaga("ledger", "verify") == 0
    assert "ledger intact" in capsys.readouterr().out
    engine = create_engine(database_owner_url)
    with engine.begin() as connection:
        connection.execute(text(DROP_POSTING_GUARD[connection.dialect.name]))
        connection.execute(text("UPDATE posting SET amount = amount + 1 WHERE posting_id = 1"))
    engine.dispose()

    code = await fundsaga("ledger", "verify", "--output", "json")
    report = json.loads(capsys.readouterr().out)

    assert code == 1
    assert report["ok"] is False
    assert any("differ from what was hashed: rewritten" in f for f in report["findings"])
    assert any("postings sum to 1, not 0" in finding for finding in report["findings"])


def test_a_record_naming_the_amount_without_decimals_agrees_with_the_ledger(
    funded: Ledger,
) -> None:
    """A request may say "10" for 10.00 EUR: the audit compares money, not text."""
    line = audit_saga(funded, compensated_hold_of_ten(funded, "transfer-w", "10"))

    assert (line.amount, line.finding) == ("10.00 EUR", None)
