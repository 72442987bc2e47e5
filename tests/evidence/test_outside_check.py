"""The check docs/audit.md gives an auditor without fundsaga passes a report as written, and
fails once an amount in it was changed."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cryptography.exceptions import InvalidSignature

from sagas.audit import public_pem
from sagas.verify import sign_pack
from tests.evidence._offline import parked_payout
from tests.fixtures_audit import TEST_SIGNER

AUDIT_DOC = Path(__file__).resolve().parents[2] / "docs" / "audit.md"


def outside_check() -> str:
    text = AUDIT_DOC.read_text(encoding="utf-8")
    found = re.search(r"<!-- example:outside-check -->\n```python\n(.*?)\n```", text, re.DOTALL)
    assert found is not None, "no python block after <!-- example:outside-check -->"
    return found.group(1)


def run_check(directory: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(directory)
    exec(compile(outside_check(), str(AUDIT_DOC), "exec"), {})


def test_the_documented_check_passes_a_report_and_fails_a_changed_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    payout = parked_payout(tmp_path)
    document = json.loads(sign_pack(payout.pack(tmp_path / "memory.json"), TEST_SIGNER).to_json())
    (tmp_path / "worker.pub").write_bytes(public_pem(TEST_SIGNER.public))
    (tmp_path / "report.json").write_text(json.dumps(document), encoding="utf-8")

    run_check(tmp_path, monkeypatch)
    assert capsys.readouterr().out == "checked\n"

    document["sagas"][0]["entries"][0]["postings"][0]["amount"] = "-6.00 EUR"
    (tmp_path / "report.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(InvalidSignature):
        run_check(tmp_path, monkeypatch)
