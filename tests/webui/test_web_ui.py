"""What an operator sees in the Temporal Web UI, in headless Chromium: a compensated saga and a
parked saga each say on their page (User Metadata: Current Details) their status in words, the
step, the amount, and for the parked one the compensation that failed and the commands that
resolve it; the list filtered by `SagaStatus` finds the parked saga. Each page's screenshot is
written under the test's tmp dir (docs/web-ui.md says how to look at them)."""

from __future__ import annotations

import asyncio
import urllib.parse
import uuid
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from temporalio.client import Client

from sagas import SagaStatus, parse_faults, parse_money
from sagas.client import FundsagaClient, SagaHandle
from sagas.codec import PayloadKeys, converter_for
from sagas.servers import free_port, serve_codec, start_dev_server
from sagas.testing import directory_audit_store, new_task_queue, sqlite_ledger
from sagas.worker import build_worker
from tests.unchecked import unchecked
from tests.webui.browser import Browser, headless_chromium, require_chromium

KEYS = PayloadKeys.parse(PayloadKeys.generate("webui-2026-11"))


@dataclass(frozen=True)
class Shown:
    ui: str
    compensated: SagaHandle
    parked: SagaHandle


async def _parked(saga: SagaHandle) -> None:
    for _ in range(200):
        if (await saga.view()).status is SagaStatus.NEEDS_ATTENTION:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{saga.saga_id} never parked")


@asynccontextmanager
async def _two_sagas(tmp_path: Path, keys: PayloadKeys | None = None) -> AsyncIterator[Shown]:
    """A dev server with its Web UI, a worker, and two transfers to a frozen account: one
    compensated, one whose capture cannot be undone (an injected refusal), so it parks. With
    `keys`, every payload is encrypted and the UI decodes through a codec server."""
    require_chromium()
    ui_port, codec_port = free_port(), free_port()
    ui = f"http://localhost:{ui_port}"
    codec = f"http://127.0.0.1:{codec_port}" if keys else None
    env = await start_dev_server(port=None, ui_port=ui_port, ui_codec_endpoint=codec)
    tag = uuid.uuid4().hex[:6]
    ledger = sqlite_ledger(tmp_path)
    for source in (f"src-{tag}", f"stuck-{tag}"):
        ledger.open_account(source, "EUR", opening_balance=parse_money("500.00", "EUR"))
    ledger.open_account(f"frozen-{tag}", "EUR")
    ledger.freeze(f"frozen-{tag}")
    faults = parse_faults(f"transfer/capture.compensation=business@stuck-{tag}")
    queue = new_task_queue()
    async with AsyncExitStack() as stack:
        stack.push_async_callback(env.shutdown)
        temporal = env.client
        if keys is not None:
            stack.enter_context(serve_codec(keys, "", [ui], "127.0.0.1", codec_port))
            temporal = await Client.connect(
                env.client.service_client.config.target_host,
                namespace=env.client.namespace,
                data_converter=converter_for(keys),
            )
        store = directory_audit_store(tmp_path / "audit")
        await stack.enter_async_context(build_worker(temporal, queue, ledger, store, faults))
        client = unchecked(FundsagaClient(temporal, queue, ledger))
        sagas = []
        for key, source, amount in (
            (f"comp-{tag}", f"src-{tag}", "12.34"),
            (f"park-{tag}", f"stuck-{tag}", "56.78"),
        ):
            request = {"source_account": source, "destination_account": f"frozen-{tag}"}
            await client.start(
                "transfer", request | {"idempotency_key": key, "amount": amount, "currency": "EUR"}
            )
            sagas.append(client.saga("transfer", key))
        assert (await sagas[0].outcome()).status is SagaStatus.COMPENSATED
        await _parked(sagas[1])
        yield Shown(ui, sagas[0], sagas[1])


@pytest.fixture
async def shown(tmp_path: Path) -> AsyncIterator[Shown]:
    async with _two_sagas(tmp_path) as sagas:
        yield sagas


@pytest.fixture
async def encrypted(tmp_path: Path) -> AsyncIterator[Shown]:
    async with _two_sagas(tmp_path, KEYS) as sagas:
        yield sagas


async def _page(shown: Shown, saga: SagaHandle, tab: str = "user-metadata") -> str:
    run_id = (await saga.describe()).run_id
    return f"{shown.ui}/namespaces/default/workflows/{saga.saga_id}/{run_id}/{tab}"


async def _look(browser: Browser, url: str, png: Path, *expected: str) -> str:
    text = await browser.page_text(url, *expected)
    await browser.screenshot(png)
    return text


async def test_the_saga_pages_say_status_step_amount_and_the_resolving_command(
    shown: Shown, tmp_path: Path
) -> None:
    parked_key = shown.parked.saga_id.removeprefix("transfer-")
    retry = f"fundsaga attention retry {parked_key} --type transfer"
    approve = f"fundsaga attention approve {parked_key} --type transfer"
    async with headless_chromium() as browser:
        compensated = await _look(
            browser,
            await _page(shown, shown.compensated),
            tmp_path / "compensated.png",
            "Status: COMPENSATED",
        )
        parked = await _look(
            browser,
            await _page(shown, shown.parked),
            tmp_path / "parked.png",
            "Status: NEEDS_ATTENTION",
            retry,
        )
        query = urllib.parse.quote('SagaStatus="NEEDS_ATTENTION"')
        listed = await _look(
            browser,
            f"{shown.ui}/namespaces/default/workflows?query={query}",
            tmp_path / "needs-attention-list.png",
            shown.parked.saga_id,
        )

    assert "Status: COMPENSATED: a step failed and every step taken was undone" in compensated
    assert "Amount: 12.34 EUR" in compensated
    assert "Compensations: credit compensated, capture compensated, reserve compensated" in (
        compensated
    )
    assert "Status: NEEDS_ATTENTION: an operator is needed" in parked
    assert "Step: capture" in parked
    assert "Amount: 56.78 EUR" in parked
    assert "Failed compensation: transfer.capture.undo of step capture" in parked
    assert retry in parked
    assert approve in parked
    assert "retry_compensation" in parked
    assert shown.parked.saga_id in listed
    assert shown.compensated.saga_id not in listed
    for name in ("compensated.png", "parked.png", "needs-attention-list.png"):
        assert (tmp_path / name).read_bytes().startswith(b"\x89PNG")


async def test_with_encryption_the_ui_decodes_details_and_compensations_via_the_codec(
    encrypted: Shown, tmp_path: Path
) -> None:
    """The same pages with every payload encrypted: the UI decodes the current details and each
    compensation's result (its event list shows the JSON) through the codec server."""
    undone = '{"result":"compensated","step_name":"credit","compensation":"transfer.credit.undo"'
    async with headless_chromium() as browser:
        details = await _look(
            browser,
            await _page(encrypted, encrypted.compensated),
            tmp_path / "encrypted-compensated.png",
            "Status: COMPENSATED",
        )
        history = await _look(
            browser,
            await _page(encrypted, encrypted.compensated, "history"),
            tmp_path / "encrypted-history.png",
            '{"result":"compensated"',
        )

    assert "Status: COMPENSATED: a step failed and every step taken was undone" in details
    assert "Amount: 12.34 EUR" in details
    assert undone[:60] in history
    assert history.count('{"result":"compensated","step_name":') == 3
