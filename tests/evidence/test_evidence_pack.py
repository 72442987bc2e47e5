"""`fundsaga audit compensations --output json` on a real run: the evidence pack names every
journal entry, reversal pair, hold and audit record with their hashes, as the ledger and the
audit store hold them, with its scope, the chains' status and totals."""

from __future__ import annotations

import csv
import getpass
import io
import json
from datetime import UTC, datetime
from importlib.metadata import version
from typing import Any

import pytest

from sagas.engine import SagaStatus
from tests.evidence.conftest import EvidenceRun, fundsaga
from tests.fixtures_audit import TEST_SIGNER

pytestmark = pytest.mark.long

Pack = dict[str, Any]


@pytest.fixture(scope="module")
async def pack(evidence_run: EvidenceRun) -> Pack:
    result = await fundsaga(evidence_run, "audit", "compensations", "-o", "json", "--by", "Ann")
    assert result.exit_code == 0, result.stdout + result.stderr
    document: Pack = json.loads(result.stdout)
    return document


def saga(pack: Pack, saga_id: str) -> Pack:
    found: Pack = next(s for s in pack["sagas"] if s["saga_id"] == saga_id)
    return found


def test_findings_come_first_then_the_scope_and_the_chains(
    pack: Pack, evidence_run: EvidenceRun
) -> None:
    run = evidence_run
    scope, chains = pack["scope"], pack["chains"]
    head = run.ledger.chain_head()

    assert list(pack) == [
        "findings",
        "verdict",
        "scope",
        "chains",
        "totals",
        "sagas",
        "rail_movements",
        "format",
        "signature",
    ]
    assert (pack["findings"], pack["verdict"]["ok"]) == ([], True)
    assert scope["made_by"]["operator"] == "Ann"
    assert scope["made_by"]["os_user"] == getpass.getuser()
    assert scope["fundsaga_version"] == version("fundsaga")
    assert datetime.fromisoformat(scope["made_at"]) <= datetime.now(UTC)
    assert scope["task_queue"] == run.task_queue
    assert scope["task_queues_seen"] == sorted([run.task_queue, run.other_queue])
    assert scope["sources"]["database"] == run.env["FUNDSAGA_DATABASE_URL"]
    assert chains["audit"]["ok"] is True
    assert chains["audit"]["head_sequence"] == run.store.head().sequence  # type: ignore[union-attr]
    assert chains["audit"]["latest_anchor"]["record"]["key_id"] == TEST_SIGNER.key_id
    assert chains["journal"]["ok"] is True
    assert chains["journal"]["unsealed"] == 0
    sealed = (chains["journal"]["sealed_head_sequence"], chains["journal"]["sealed_head_hash"])
    assert sealed == (head.sequence, head.entry_hash)
    assert chains["journal"]["latest_anchor"]["sequence"] == head.sequence
    assert chains["journal"]["key_ids"] == [TEST_SIGNER.key_id]
    assert pack["signature"]["key_id"] == TEST_SIGNER.key_id


def test_each_saga_names_the_entries_reversals_holds_and_records_that_prove_it(
    pack: Pack, evidence_run: EvidenceRun
) -> None:
    run = evidence_run
    for saga_id in (run.frozen, run.exhausted):
        shown = saga(pack, saga_id)
        views = run.ledger.entries(saga_id=saga_id)
        entries = shown["entries"]

        assert [e["entry_id"] for e in entries] == [v.entry_id for v in views]
        assert [e["entry_hash"] for e in entries] == [v.entry_hash for v in views]
        assert [e["seal"]["sequence"] for e in entries] == [v.sequence for v in views]
        assert [e["idempotency_key"] for e in entries] == [v.idempotency_key for v in views]
        reversed_pairs = [
            {"original_entry_id": v.reverses_entry_id, "reversal_entry_id": v.entry_id}
            for v in views
            if v.reverses_entry_id is not None
        ]
        assert shown["reversals"] == reversed_pairs
        assert reversed_pairs
        by_id = {e["entry_id"]: e for e in entries}
        for pair in shown["reversals"]:
            original = by_id[pair["original_entry_id"]]["postings"]
            reversal = by_id[pair["reversal_entry_id"]]
            assert reversal["phase"] == "compensation"
            negated = [(p["account_id"], p["amount"].lstrip("-")) for p in original]
            assert [(p["account_id"], p["amount"].lstrip("-")) for p in reversal["postings"]] == (
                negated
            )
        records = run.store.records(saga_id=saga_id)
        listed = [(r["sequence"], r["kind"], r["hash"], r["key_id"]) for r in shown["records"]]
        assert listed == [(r.sequence, r.kind, r.hash, r.key_id) for r in records]
        assert shown["net_effect"] == []
        assert {hold["status"] for hold in shown["holds"]} <= {"posted", "voided"}
        assert shown["verdict"] == {"ok": True, "reason": "net effect zero on every account"}
        assert all(e["rail_status"] is None for e in entries)


def test_totals_are_per_currency_and_status(pack: Pack) -> None:
    assert pack["totals"] == [
        {"currency": "EUR", "status": "COMPENSATED", "sagas": 2, "moved": "20.00 EUR"},
        {"currency": "EUR", "status": "REJECTED", "sagas": 1, "moved": "0.00 EUR"},
    ]


def test_an_error_names_its_class_once(pack: Pack, evidence_run: EvidenceRun) -> None:
    errors = {s["saga_id"]: s["error"] for s in pack["sagas"]}

    assert errors[evidence_run.frozen] == (
        "AccountFrozenError: destination_account: account 'carol' is frozen"
    )
    assert errors[evidence_run.rejected] == (
        "InvalidRequestError: destination_account: must differ from source_account"
    )
    for error in errors.values():
        first = error.split(":")[0]
        assert not error.startswith(f"{first}: {first}"), error


async def test_a_saga_that_moved_no_money_shows_the_amount_it_requested(
    pack: Pack, evidence_run: EvidenceRun
) -> None:
    rejected = saga(pack, evidence_run.rejected)
    as_csv = await fundsaga(evidence_run, "audit", "compensations", "-o", "csv")
    table = await fundsaga(evidence_run, "audit", "compensations")
    rows = {row["saga_id"]: row for row in csv.DictReader(io.StringIO(as_csv.stdout))}

    assert (rejected["requested"], rejected["moved"]) == ("7.00 EUR", None)
    assert (rejected["entries"], rejected["holds"]) == ([], [])
    assert rejected["verdict"]["reason"] == "no money moved: no journal entry and no hold"
    assert rows[evidence_run.rejected]["amount"] == "7.00 EUR requested, not moved"
    assert all(row["amount"] != "nothing" for row in rows.values())
    assert "7.00 EUR requested, not moved" in table.stdout
    assert " nothing " not in table.stdout


def test_a_saga_on_another_task_queue_is_known_to_temporal(
    pack: Pack, evidence_run: EvidenceRun
) -> None:
    rejected = saga(pack, evidence_run.rejected)
    (run,) = rejected["temporal_runs"]

    assert (run["workflow_id"], run["task_queue"]) == (
        evidence_run.rejected,
        evidence_run.other_queue,
    )
    assert run["saga_status"] == SagaStatus.REJECTED.value
    assert run["run_id"]
    assert all("no longer in Temporal" not in s["verdict"]["reason"] for s in pack["sagas"])
