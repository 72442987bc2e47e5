"""The HTML evidence report in a real browser: headless Chromium reads it with no network and
no script, and prints it to PDF. Skipped where Chromium is missing, except in CI."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.evidence.conftest import EvidenceRun, fundsaga

pytestmark = pytest.mark.long

HEADLESS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture
def chromium() -> str:
    found = shutil.which("chromium")
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("chromium is not installed, and CI must run this test (.ci/run)")
        pytest.skip("chromium is not installed")
    return found


def browse(chromium: str, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [chromium, *HEADLESS, f"--user-data-dir={profile}", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )


async def test_chromium_shows_the_verdict_and_each_saga_s_entries_and_prints_the_page(
    chromium: str, evidence_run: EvidenceRun, tmp_path: Path
) -> None:
    page, report = tmp_path / "report.html", tmp_path / "report.json"
    for path, form in ((page, "html"), (report, "json")):
        made = await fundsaga(
            evidence_run, "audit", "compensations", "-o", form, "--file", str(path)
        )
        assert made.exit_code == 0, made.stdout + made.stderr
    document = json.loads(report.read_text())
    frozen = next(s for s in document["sagas"] if s["saga_id"] == evidence_run.frozen)
    pdf = tmp_path / "r.pdf"

    dom = browse(chromium, tmp_path / "profile", "--dump-dom", page.as_uri()).stdout
    browse(chromium, tmp_path / "profile", f"--print-to-pdf={pdf}", page.as_uri())

    assert f"Compensation audit: {document['verdict']['summary']}" in dom
    assert "no findings" in dom
    for entry in frozen["entries"]:
        assert f'<td class="num">{entry["entry_id"]}</td>' in dom
        assert entry["idempotency_key"] in dom
        assert entry["entry_hash"] in dom
    assert '<script type="application/json" id="evidence">' in dom
    assert pdf.read_bytes().startswith(b"%PDF")
    assert pdf.stat().st_size > 20_000
