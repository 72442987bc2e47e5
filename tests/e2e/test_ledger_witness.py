"""Every journal entry against its witness, on a real run of several saga types.

Temporal's histories name the entries each step wrote (ledger receipts), the audit trail the
fundings that two verified operators approved. `fundsaga ledger verify` and `fundsaga audit
compensations` find what nobody witnessed (the mint attack), and what Temporal saw written but
the journal lost (a cut tail), by this verifier's memory too. The attackers act with the roles
the deployment gives: the worker's database role and signing key, or the database's owner.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from pydantic import JsonValue
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus, parse_faults
from sagas.audit import AuditStore, open_audit_store
from sagas.client import FundsagaClient
from sagas.engine import AuditKind, receipt_of
from sagas.foundations import make_engine
from sagas.ledger import EntryKind, Ledger
from sagas.testing import dev_identity, freeze_by_operator, fund_by_two, new_task_queue
from sagas.verify import (
    LEDGER_VERIFIED_HEAD,
    entry_witness_findings,
    receipt_payloads,
    temporal_witness,
)
from sagas.worker import build_worker
from tests.e2e._fast import FastTransferWorkflow
from tests.e2e.conftest import eur, fundsaga
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER
from tests.ledger._owner import cut_tail, guards_off

pytestmark = pytest.mark.long

LOCAL_STEPS = {"transfer": "TransferLocalStepsWorkflow"}
FAST = {"transfer": "FastTransferWorkflow"}


@dataclass(frozen=True)
class Run:
    temporal: WorkflowEnvironment
    queue: str
    client: FundsagaClient
    ledger: Ledger
    store: AuditStore
    sagas: dict[str, SagaStatus]

    async def saga(self, saga_type: str, body: Mapping[str, Any], local: bool = False) -> str:
        """Run one saga to its end; its id."""
        client = self.client
        if local:
            client = FundsagaClient(
                self.temporal.client, self.queue, self.ledger, workflow_types=LOCAL_STEPS
            )
        key = f"{saga_type}-{uuid.uuid4().hex[:8]}"
        await client.start(saga_type, {"idempotency_key": key, **body})
        outcome = await client.saga(saga_type, key).outcome()
        self.sagas[outcome.saga_id] = outcome.status
        return outcome.saga_id


def transfer(source: str, destination: str, amount: str) -> dict[str, str]:
    return {
        "source_account": source,
        "destination_account": destination,
        "amount": amount,
        "currency": "EUR",
    }


def sweep(account: str) -> dict[str, str]:
    return {
        "operating_account": account,
        "treasury_account": "treasury",
        "currency": "EUR",
        "threshold": "0",
    }


@pytest.fixture
async def run(
    dev_env: WorkflowEnvironment, cli_task_queue: str, ledger: Ledger, tmp_path: Path
) -> AsyncIterator[Run]:
    """Accounts funded by two operators; a completed transfer on activities, one on local
    steps, one compensated (its payee is frozen), a fee and a sweep."""
    for account in ("alice", "bob", "carol", "dora", "treasury"):
        ledger.open_account(account, "EUR")
    store = open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    operators = dev_identity().check()
    async with build_worker(dev_env.client, cli_task_queue, ledger, store, operators=operators):
        for account, amount in (("alice", "1000.00"), ("bob", "50.00")):
            await fund_by_two(dev_env.client, cli_task_queue, account, eur(amount))
        await freeze_by_operator(dev_env.client, cli_task_queue, "dora")
        # No ledger: the transfer to frozen dora is refused by its step, not before its start.
        client = FundsagaClient(dev_env.client, cli_task_queue)
        done = Run(dev_env, cli_task_queue, client, ledger, store, {})
        await done.saga("transfer", transfer("alice", "bob", "10.00"))
        await done.saga("transfer", transfer("alice", "carol", "5.00"), local=True)
        await done.saga("transfer", transfer("alice", "dora", "1.00"))
        fee = {"customer_account": "alice", "currency": "EUR", "fee": "2.00", "tax": "0.40"}
        await done.saga("fee-collection", fee)
        await done.saga("eod-sweep", sweep("bob"))
        yield done
    store.close_connections()


async def ledger_verify(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = await fundsaga("ledger", "verify", "--output", "json")
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, report


async def compensation_audit(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    capsys.readouterr()
    code = await fundsaga("audit", "compensations", "--output", "json")
    report: dict[str, Any] = json.loads(capsys.readouterr().out)
    return code, report


async def test_a_clean_run_of_several_saga_types_has_a_witness_for_every_entry(
    run: Run, capsys: pytest.CaptureFixture[str]
) -> None:
    code, report = await ledger_verify(capsys)
    audit_code, audit = await compensation_audit(capsys)
    witness = await temporal_witness(run.temporal.client, run.queue)

    assert (code, report["findings"], report["temporal_compared"]) == (0, [], True)
    assert (audit_code, audit["findings"]) == (0, [])
    assert sorted(run.sagas.values()).count(SagaStatus.COMPENSATED) == 1
    seen = {(sight.history_of, sight.receipt.key) for sight in witness.seen}
    entries = run.ledger.entries()
    for entry in entries:
        if entry.kind == EntryKind.VOID_MARKER:
            continue
        history = entry.saga_id or f"funding-{entry.idempotency_key.removeprefix('funding:')}"
        assert (history, entry.idempotency_key) in seen, entry
    assert {entry.saga_id for entry in entries} >= set(run.sagas)


async def test_an_entry_whose_step_then_failed_for_good_is_named_by_the_failure(
    run: Run,
) -> None:
    """A capture that commits and then times out on every attempt: the step's final failure
    names the entry it wrote, and the compensation's reversal names its own."""
    queue = new_task_queue()
    faults = parse_faults("transfer/capture=timeout")
    async with build_worker(
        run.temporal.client, queue, run.ledger, run.store, faults, workflows=[FastTransferWorkflow]
    ):
        client = FundsagaClient(run.temporal.client, queue, run.ledger, workflow_types=FAST)
        key = f"timeout-{uuid.uuid4().hex[:8]}"
        await client.start("transfer", {"idempotency_key": key, **transfer("alice", "bob", "3.00")})
        outcome = await client.saga("transfer", key).outcome()
    history = await run.temporal.client.get_workflow_handle(outcome.saga_id).fetch_history()
    failures = [e for e in history.events if e.HasField("activity_task_failed_event_attributes")]
    witness = await temporal_witness(run.temporal.client, queue)
    entries = run.ledger.entries(saga_id=outcome.saga_id)

    assert outcome.status is SagaStatus.COMPENSATED
    named = {
        receipt.key for payload in receipt_payloads(failures) for receipt in receipt_of(payload)
    }
    assert named == {f"{outcome.saga_id}:capture:action"}
    assert {e.kind for e in entries} == {EntryKind.CAPTURE, EntryKind.REVERSAL}
    assert entry_witness_findings(entries, witness, []) == []


async def test_the_mint_attack_is_a_finding(
    run: Run, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A worker host's database role and signing key: a 10,000 EUR funding of a new account,
    and 500 EUR to it from a customer for a saga that never ran, signed and chained."""
    mallory = Ledger.from_url(database_url, signer=TEST_SIGNER)
    mallory.open_account("mallory", "EUR")
    mallory.fund("funding:mint", "mallory", eur("10000.00"))
    ghost = "transfer-ghost"
    mallory.transfer(f"{ghost}:credit:action", "alice", "mallory", eur("500.00"), saga_id=ghost)
    mallory.close_connections()

    code, report = await ledger_verify(capsys)
    audit_code, audit = await compensation_audit(capsys)

    assert code == 1
    assert report["findings"][:1] == [
        "entry 'funding:mint' has no witness: no signed audit record says a verified operator "
        "approved funding-mint"
    ]
    assert report["findings"][1].startswith(
        f"entry '{ghost}:credit:action' has no witness: Temporal does not know {ghost}, yet the "
        "entry is not past the namespace's retention"
    )
    assert len(report["findings"]) == 2
    assert audit_code == 1
    assert [f"ledger: {finding}" for finding in report["findings"]] == [
        finding for finding in audit["findings"] if "has no witness" in finding
    ]


async def test_the_mint_attack_with_forged_audit_records_is_a_finding_too(
    run: Run, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The same host also appends signed records (it is the audit store's writer, with the
    key): a funding proposed and approved by two made-up operators, a saga ended COMPENSATED.
    No anchor taken before the retention ended covers these entries: Temporal must still hold
    their histories."""
    mallory = Ledger.from_url(database_url, signer=TEST_SIGNER)
    mallory.open_account("mallory", "EUR")
    mallory.fund("funding:mint", "mallory", eur("10000.00"))
    ghost = "transfer-ghost"
    mallory.transfer(f"{ghost}:credit:action", "alice", "mallory", eur("500.00"), saga_id=ghost)
    mallory.close_connections()
    forge_funding(run.store, "funding-mint", "mallory", "10000.00")
    run.store.append(
        kind=AuditKind.TERMINAL,
        saga_id=ghost,
        dedupe_key=f"{ghost}:terminal",
        payload={"saga_id": ghost, "status": "COMPENSATED", "compensations": []},
    )

    code, report = await ledger_verify(capsys)

    assert code == 1
    assert [finding.split(", yet")[0] for finding in report["findings"]] == [
        "entry 'funding:mint' has no witness: Temporal does not know funding-mint",
        f"entry '{ghost}:credit:action' has no witness: Temporal does not know {ghost}",
    ]


def forge_funding(store: AuditStore, funding: str, account: str, amount: str) -> None:
    facts: dict[str, JsonValue] = {
        "funding_id": funding,
        "account_id": account,
        "amount": amount,
        "currency": "EUR",
    }
    for kind, name in ((AuditKind.FUNDING_PROPOSED, "ann"), (AuditKind.FUNDING_APPROVED, "ben")):
        identity: dict[str, JsonValue] = {
            "issuer": "fundsaga-dev",
            "subject": name,
            "name": name,
            "roles": ["operator", "approver"],
            "token_sha256": "0" * 64,
            "expires_at": "2099-01-01T00:00:00Z",
        }
        store.append(
            kind=kind,
            saga_id=funding,
            dedupe_key=f"{funding}:{kind}",
            payload={**facts, "operator": name, "identity": identity},
        )


async def test_a_cut_tail_is_found_by_the_verifier_s_memory_and_by_temporal(
    run: Run,
    database_owner_url: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The database's owner deletes the newest entries with their postings, sets the balances
    back, moves the head back and drops the newest anchors: what is left verifies as a chain."""
    assert await fundsaga("audit", "anchor") == 0
    assert (await ledger_verify(capsys))[0] == 0
    keep = run.ledger.chain_head().sequence
    anchors = set((tmp_path / "anchors").glob("*.json"))
    funding = await fund_by_two(run.temporal.client, run.queue, "carol", eur("100.00"))
    swept = await run.saga("eod-sweep", sweep("carol"))
    assert await fundsaga("audit", "anchor") == 0
    assert (await ledger_verify(capsys))[0] == 0
    newest = run.ledger.chain_head().sequence

    owner: Engine = make_engine(database_owner_url)
    with guards_off(owner) as db:
        deleted = cut_tail(db, keep)
    owner.dispose()
    for dropped in set((tmp_path / "anchors").glob("*.json")) - anchors:
        dropped.chmod(0o644)
        dropped.unlink()
    code, report = await ledger_verify(capsys)
    (tmp_path / LEDGER_VERIFIED_HEAD).unlink()
    forgetful_code, forgetful = await ledger_verify(capsys)

    assert deleted == newest - keep == 2
    assert code == 1
    assert report["findings"][0].startswith(
        f"journal rolled back: it ends at #{keep}, but this verifier accepted entry #{newest} on "
        f"{datetime.now(UTC):%Y-%m-%d}"
    )
    lost = [
        f"entry '{swept}:sweep:action' is in the history of {swept}",
        f"entry 'funding:{funding.funding_id.removeprefix('funding-')}' is in the history of "
        f"{funding.funding_id}",
    ]
    assert sorted(finding.split(" (run ")[0] for finding in report["findings"][1:]) == lost
    assert all(f.endswith("but not in the ledger: it was deleted") for f in report["findings"][1:])
    assert forgetful_code == 1
    assert forgetful["findings"] == report["findings"][1:]
