"""A `fundsaga worker` process with its own ledger and audit trail, for tests that read what
the process itself writes (its log lines, the traces it exports)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

from temporalio.client import Client

from sagas import SagaStatus, parse_money
from sagas.client import FundsagaClient
from sagas.foundations import upgrade_database
from sagas.ledger import Ledger
from tests.fixtures_audit import TEST_SIGNER

FUNDSAGA = str(Path(sys.executable).parent / "fundsaga")
REPO = Path(__file__).resolve().parents[2]


def worker_environment(home: Path, address: str, url: str, **settings: str) -> dict[str, str]:
    """A `fundsaga worker`'s environment on its own task queue: the ledger at `url`, the audit
    trail and the test signing key in `home`, and `settings` over them."""
    TEST_SIGNER.write(home / "audit-signing.key")
    inherited = {k: v for k, v in os.environ.items() if not k.startswith("FUNDSAGA_")}
    return inherited | {
        "PYTHONPATH": str(REPO),
        "TEMPORAL_ADDRESS": address,
        "FUNDSAGA_TASK_QUEUE": f"tq-{uuid.uuid4()}",
        "FUNDSAGA_DATABASE_URL": url,
        "FUNDSAGA_AUDIT_STORE": f"dir:{home / 'audit'}",
        "FUNDSAGA_AUDIT_ANCHOR_STORE": f"dir:{home / 'anchors'}",
        "FUNDSAGA_AUDIT_SIGNING_KEY": str(home / "audit-signing.key"),
        "FUNDSAGA_AUDIT_ANCHOR_MINUTES": "0",
        **settings,
    }


@dataclass(frozen=True)
class WorkerProcess:
    home: Path
    env: dict[str, str]

    @staticmethod
    def prepare(home: Path, address: str, **settings: str) -> WorkerProcess:
        """Its environment, a migrated ledger with alice (100.00 EUR), carol and dave, and its
        signing key, in `home`."""
        url = f"sqlite:///{home / 'fundsaga.db'}"
        upgrade_database(url)
        ledger = Ledger.from_url(url, signer=TEST_SIGNER)
        ledger.open_account("alice", "EUR", opening_balance=parse_money("100.00", "EUR"))
        for name in ("carol", "dave"):
            ledger.open_account(name, "EUR")
        ledger.close_connections()
        return WorkerProcess(home, worker_environment(home, address, url, **settings))

    async def transfer(self, temporal: Client, key: str, to: str) -> tuple[SagaStatus, list[str]]:
        """Run the worker while a transfer of 10.00 EUR from alice runs to its end, started on
        `temporal`; the saga's status and the worker's stderr lines once it has stopped."""
        worker = await asyncio.create_subprocess_exec(
            FUNDSAGA,
            "worker",
            env=self.env,
            cwd=self.home,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        assert worker.stdout is not None
        client = FundsagaClient(temporal, self.env["FUNDSAGA_TASK_QUEUE"])
        request = {"source_account": "alice", "destination_account": to, "amount": "10.00"}
        try:
            await asyncio.wait_for(worker.stdout.readline(), timeout=60)
            await client.start("transfer", {"idempotency_key": key, **request, "currency": "EUR"})
            outcome = await asyncio.wait_for(client.saga("transfer", key).outcome(), timeout=60)
        finally:
            with contextlib.suppress(ProcessLookupError):  # it may have refused to start
                worker.send_signal(signal.SIGTERM)
            _, stderr = await asyncio.wait_for(worker.communicate(), timeout=60)
        return outcome.status, stderr.decode().splitlines()
