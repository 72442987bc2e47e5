"""What one `fundsaga` command opens (settings, event loop, ledger, audit stores, Temporal),
and closes in one place when the command ends, whichever way it ends."""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from contextlib import ExitStack
from typing import Any, TypeVar

import typer
from temporalio.client import Client

from sagas.audit import AnchoredAuditStore, AuditKeys
from sagas.client import FundsagaClient, TemporalUnreachableError, connect_temporal
from sagas.foundations import Settings, load_settings
from sagas.ledger import Ledger
from sagas.telemetry import shutdown_tracing
from sagas.verify import open_audit, writer_keys

T = TypeVar("T")


class Invocation:
    """Each part is opened when first used: `--help` and the commands that need no Temporal
    never connect."""

    def __init__(self) -> None:
        self._settings: Settings | None = None
        self._ledger: Ledger | None = None
        self._ledger_signs = False
        self._scans = False
        self._temporal: Client | None = None
        self._unreachable: TemporalUnreachableError | None = None
        self._loop: asyncio.Runner | None = None
        self._closing = ExitStack()
        self._closing.callback(shutdown_tracing)

    @staticmethod
    def of(ctx: typer.Context) -> Invocation:
        invocation = ctx.find_root().obj
        if not isinstance(invocation, Invocation):
            raise TypeError("the root command did not open an Invocation")
        return invocation

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = load_settings()
        return self._settings

    def scanning(self) -> Invocation:
        """This command reads whole tables (a verifier, the collector): its database statements
        may run FUNDSAGA_DB_SCAN_STATEMENT_TIMEOUT. Say so before it opens the database."""
        self._scans = True
        return self

    def ledger(self, *, signing: bool = False) -> Ledger:
        """The configured ledger; `signing` gives it the writer's key, whose signature every
        entry and hold it writes carries (so it fails without FUNDSAGA_AUDIT_SIGNING_KEY)."""
        if self._ledger is None or (signing and not self._ledger_signs):
            signer = writer_keys(self.settings).require_signer() if signing else None
            timeouts = self.settings.database_timeouts(scans=self._scans)
            self._ledger = Ledger.from_url(
                self.settings.database_url, signer=signer, timeouts=timeouts
            )
            self._ledger_signs = signing
            self._closing.callback(self._ledger.close_connections)
        return self._ledger

    def audit(self, keys: AuditKeys) -> AnchoredAuditStore:
        store = open_audit(self.settings, keys, scans=self._scans)
        self._closing.callback(store.close_connections)
        return store

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        """Run `work` on this command's one event loop."""
        if self._loop is None:
            self._loop = self._closing.enter_context(asyncio.Runner())
        return self._loop.run(work)

    async def temporal(self, *, serve_metrics: bool = False, wait: bool = False) -> Client:
        """The Temporal client, connected once; a server that did not answer is not asked
        again by the same command. `wait` (a long-running process) tries again until it
        answers; `serve_metrics` and `wait`: see `connect_temporal`."""
        if self._unreachable is not None:
            raise self._unreachable
        if self._temporal is None:
            try:
                self._temporal = await connect_temporal(
                    self.settings, serve_metrics=serve_metrics, wait=wait
                )
            except TemporalUnreachableError as err:
                self._unreachable = err
                raise
        return self._temporal

    async def client(self, *, with_ledger: bool = False, wait: bool = False) -> FundsagaClient:
        """A client on `temporal`, with the configured ledger when `with_ledger`."""
        ledger = self.ledger() if with_ledger else None
        return FundsagaClient.configured(await self.temporal(wait=wait), self.settings, ledger)

    def close(self) -> None:
        """Close database engines and the event loop; the SDK has no close for its client, so
        it is dropped with its last reference."""
        self._temporal = None
        self._closing.close()
