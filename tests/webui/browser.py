"""Headless Chromium driven through chromedriver's WebDriver HTTP API, with the standard library
only: load a Temporal Web UI page, wait until its text (iframes included, where the UI renders
a workflow's Markdown summary and details) says what the test looks for, take a screenshot."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import shutil
import subprocess
import urllib.error
import urllib.request
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from sagas.servers import free_port

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
POLLS = 120
"""How many times a page's text is read (half a second apart) before the wait gives up."""
PAGE_TEXT = """
return [document.body.innerText].concat(
  [...document.querySelectorAll("iframe")].map(
    (f) => (f.contentDocument && f.contentDocument.body ? f.contentDocument.body.innerText : "")
  )
).join("\\n");
"""


def require_chromium() -> None:
    """Skip when Chromium or chromedriver is absent, except in CI, where it fails."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if shutil.which(p) is None]
    if not missing:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"CI needs {', '.join(missing)} (.ci/run installs chromium)")
    pytest.skip(f"no {', '.join(missing)}: install chromium to see the Web UI")


class Browser:
    """One WebDriver session of headless Chromium."""

    def __init__(self, base: str, session: str) -> None:
        self._base = f"{base}/session/{session}"

    async def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        return await asyncio.to_thread(_request, method, f"{self._base}{path}", body)

    async def page_text(self, url: str, *expected: str) -> str:
        """The text of `url` once it holds every `expected` string (or after POLLS reads)."""
        await self.open(url)
        return await self.text(*expected)

    async def open(self, url: str) -> None:
        await self._call("POST", "/url", {"url": url})

    async def text(self, *expected: str) -> str:
        """The text of the page shown, once it holds every `expected` string (or after POLLS
        reads)."""
        text = ""
        for _ in range(POLLS):
            text = await self._call("POST", "/execute/sync", {"script": PAGE_TEXT, "args": []})
            if all(word in text for word in expected):
                break
            await asyncio.sleep(0.5)
        return str(text)

    async def run(self, script: str) -> Any:
        """What `script` (a function body) returns in the page."""
        return await self._call("POST", "/execute/sync", {"script": script, "args": []})

    async def click(self, css: str) -> None:
        """Click the element `css` selects, as a person does, once the page shows it (or fail
        after POLLS looks)."""
        for _ in range(POLLS):
            found = await self.run(f"return document.querySelector({json.dumps(css)}) !== null;")
            if found:
                break
            await asyncio.sleep(0.5)
        element = await self._call("POST", "/element", {"using": "css selector", "value": css})
        await self._call("POST", f"/element/{next(iter(element.values()))}/click", {})

    async def screenshot(self, path: Path) -> Path:
        encoded = await self._call("GET", "/screenshot")
        path.write_bytes(base64.b64decode(encoded))
        return path


def _request(method: str, url: str, body: dict[str, Any] | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())["value"]


async def _ready(base: str) -> None:
    for _ in range(POLLS):
        try:
            await asyncio.to_thread(_request, "GET", f"{base}/status")
            return
        except (urllib.error.URLError, ConnectionError):
            await asyncio.sleep(0.1)
    raise RuntimeError("chromedriver did not answer")


@asynccontextmanager
async def headless_chromium(width: int = 1400, height: int = 1500) -> AsyncIterator[Browser]:
    """A browser session; the page is run asynchronously so the test's worker keeps answering
    the queries the Web UI sends it."""
    port = free_port()
    driver = subprocess.Popen(
        [CHROMEDRIVER, f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        await _ready(base)
        options = {
            "binary": CHROMIUM,
            "args": [
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                f"--window-size={width},{height}",
            ],
        }
        capabilities = {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": options}}
        session = await asyncio.to_thread(
            _request, "POST", f"{base}/session", {"capabilities": capabilities}
        )
        browser = Browser(base, session["sessionId"])
        try:
            yield browser
        finally:
            await asyncio.to_thread(_request, "DELETE", f"{base}/session/{session['sessionId']}")
    finally:
        driver.terminate()
        driver.wait()
