"""The workflow list and a workflow's details read as docs/web-ui.md tells an operator to: the
saga columns added by clicking Configure Columns, the list of sagas and each outcome's list
opened by the queries the page holds, each row read by its column headers."""

from __future__ import annotations

import re
import urllib.parse

from tests.docs.test_docs_match_code import read_doc
from tests.webui.browser import Browser

PAGE = "web-ui.md"
COLUMNS = "<!-- saga-columns -->"
"""The marker before the page's two steps: the columns removed, then those added."""
ALL_SAGAS = "<!-- saga-list-query -->"
"""The marker before the page's query of every saga and recovery."""
OUTCOME_QUERIES = "<!-- saga-outcome-queries -->"
"""The marker before the page's table of one query per outcome."""
HEADER = "workflows-summary-table-header-cell-"
ROWS = f"""
const heads = [...document.querySelectorAll('th[data-testid^="{HEADER}"]')]
  .map((th) => th.dataset.testid.replace("{HEADER}", ""));
const rows = 'tr[data-testid="workflows-summary-configurable-table-row"]';
const cell = '[data-testid="workflows-summary-table-body-cell"]';
return [...document.querySelectorAll(rows)].map((tr) => {{
  const cells = [...tr.querySelectorAll(cell)].map((td) => td.innerText.trim());
  return Object.fromEntries(heads.map((head, i) => [head, cells[i] ?? ""]));
}});
"""
"""Each row of the workflow list as {column header: the cell's text}."""
LINKS = """
const documents = [...document.querySelectorAll("iframe")].map((f) => f.contentDocument);
return documents.filter((d) => d).flatMap(
  (d) => [...d.querySelectorAll("a")].map((a) => [a.innerText, a.href])
);
"""
"""Each link of the page's Markdown (its summary and details), as [text, resolved address]."""


def documented_columns() -> tuple[list[str], list[str]]:
    """The page's steps after COLUMNS: the columns removed (step 1), those added (step 2)."""
    steps = read_doc(PAGE).split(COLUMNS, 1)[1].strip().split("\n\n", 1)[0]
    removed, added = (re.findall(r"`([^`]+)`", step) for step in re.split(r"\n2\. ", steps))
    return removed, added


def documented_list_query() -> str:
    found = re.search(re.escape(ALL_SAGAS) + r"\n```text\n(.*?)\n```", read_doc(PAGE))
    assert found is not None, f"no query after {ALL_SAGAS}"
    return found.group(1)


def documented_queries() -> dict[str, str]:
    """The page's table after OUTCOME_QUERIES: outcome → its query."""
    table = read_doc(PAGE).split(OUTCOME_QUERIES, 1)[1].strip().split("\n\n", 1)[0]
    rows = [line.split("|")[1:3] for line in table.splitlines()[2:]]
    return {outcome.strip(): query.strip().strip("`") for outcome, query in rows}


def list_url(ui: str, query: str) -> str:
    return f"{ui}/namespaces/default/workflows?query={urllib.parse.quote(query)}"


def page_url(ui: str, workflow_id: str) -> str:
    return f"{ui}/namespaces/default/workflows/{urllib.parse.quote(workflow_id, safe='')}"


async def configure_columns(browser: Browser, ui: str) -> None:
    """As the page says: Configure Columns, remove some, add the saga columns, close."""
    removed, added = documented_columns()
    await browser.open(f"{ui}/namespaces/default/workflows")
    await browser.click('button[aria-label="Configure Columns"]')
    for column in removed:
        await browser.click(f'button[aria-label="Remove {column} column"]')
    for column in added:
        await browser.click(f'button[aria-label="Add {column} column"]')
    await browser.click('button[data-testid="drawer-close-button"]')


async def list_rows(browser: Browser, url: str, *expected: str) -> dict[str, dict[str, str]]:
    """The list at `url` once it shows every `expected` workflow id, by workflow id."""
    await browser.page_text(url, *expected)
    rows: list[dict[str, str]] = await browser.run(ROWS)
    return {row["Workflow ID"]: row for row in rows}


async def user_metadata(browser: Browser, page: str, *expected: str) -> tuple[str, dict[str, str]]:
    """The text of the workflow's User Metadata tab, reached from `page` by a click on the tab,
    once it holds every `expected` string, and its links by their text."""
    await browser.open(page)
    await browser.click('a[href$="/user-metadata"]')
    text = await browser.text(*expected)
    links: list[list[str]] = await browser.run(LINKS)
    return text, dict(links)
