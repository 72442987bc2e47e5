"""The Temporal Web UI's workflow list read as docs/web-ui.md tells an operator to read it, in
headless Chromium, after the demo and a saga of every other outcome (tests/webui/every_outcome):
each saga's badge and columns, and each outcome's query; and a killed saga's page and its
recovery's, which link to each other. Screenshots go under the test's tmp dir
(docs/images/saga-list.png and killed-saga.png are from a run of it)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from sagas.engine import recovery_id
from tests.webui.browser import headless_chromium, require_chromium
from tests.webui.every_outcome import Shown, every_outcome
from tests.webui.saga_list import (
    configure_columns,
    documented_list_query,
    documented_queries,
    list_rows,
    list_url,
    page_url,
    user_metadata,
)


@pytest.fixture(scope="module")
async def shown(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Shown]:
    require_chromium()
    async with every_outcome(tmp_path_factory.mktemp("sagas")) as sagas:
        yield sagas


async def test_the_list_tells_each_saga_s_outcome_as_the_page_says(
    shown: Shown, tmp_path: Path
) -> None:
    async with headless_chromium(width=1600, height=1100) as browser:
        await configure_columns(browser, shown.ui)
        every = list_url(shown.ui, documented_list_query())
        rows = await list_rows(browser, every, *shown.rows)
        await browser.screenshot(tmp_path / "saga-list.png")
        by_outcome = {
            outcome: await list_rows(browser, list_url(shown.ui, query), *shown.outcomes[outcome])
            for outcome, query in documented_queries().items()
        }

    assert set(rows) == set(shown.rows)
    for workflow_id, expected in shown.rows.items():
        row = rows[workflow_id]
        assert row["Status"] == expected.badge.upper(), workflow_id
        assert row["SagaStatus"] == expected.saga_status, workflow_id
        assert row["SagaWaitingOn"] == expected.waiting_on, workflow_id
        assert row["SagaType"] == expected.saga_type, workflow_id
    assert set(by_outcome) == set(shown.outcomes)
    for outcome, listed in by_outcome.items():
        assert set(listed) == shown.outcomes[outcome], outcome
    assert (tmp_path / "saga-list.png").read_bytes().startswith(b"\x89PNG")


async def test_a_killed_saga_s_page_and_its_recovery_s_link_to_each_other(
    shown: Shown, tmp_path: Path
) -> None:
    """Each page's User Metadata links to the other's page, as the operator follows it; the
    recovery that compensated the other killed saga still names it."""
    recovery, recovered = recovery_id(shown.killed), recovery_id(shown.recovered)
    async with headless_chromium() as browser:
        own, own_links = await user_metadata(browser, page_url(shown.ui, shown.killed), recovery)
        await browser.screenshot(tmp_path / "killed-saga.png")
        then, then_links = await user_metadata(browser, own_links[recovery], "Recovery of:")
        await browser.screenshot(tmp_path / "killed-saga-recovery.png")
        back, _ = await user_metadata(browser, then_links[shown.killed], "If the badge says")
        done, done_links = await user_metadata(
            browser, page_url(shown.ui, recovered), "Recovery of:"
        )

    assert "If the badge says Terminated, Timed Out or Failed: the saga was killed here" in own
    assert f"its recovery {recovery} says what it did and what to do" in own
    assert "Status: KILLED" in then
    assert f"Recovery of: {shown.killed}, whose own page still shows what it said" in then
    assert f"fundsaga attention recover {shown.killed.removeprefix('transfer-')}" in then
    assert f"its recovery {recovery}" in back
    assert "Status: COMPENSATED: a step failed and every step taken was undone" in done
    assert f"Recovery of: {shown.recovered}, killed" in done
    assert "If the badge says" not in done
    assert done_links[shown.recovered] == page_url(shown.ui, shown.recovered)
