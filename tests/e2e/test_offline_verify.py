"""`fundsaga ledger verify` on a fresh verifier that cannot reach Temporal and finds no anchor.

Nothing then vouches for the journal's length: the owner cut its newest entries, and the chain,
the signatures and the balances all check out. Where the deployment anchors the journal, that
is a finding unless the verifier says `--offline-ok`; then the report says what it did not check.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import create_engine

from sagas.ledger import Ledger
from sagas.verify import LEDGER_VERIFIED_HEAD
from tests.e2e.conftest import eur, fundsaga
from tests.e2e.test_cli_commands import closed_port
from tests.fixtures_audit import write_public_key
from tests.ledger._owner import cut_tail, guards_off


@pytest.fixture
def cut_offline(
    monkeypatch: pytest.MonkeyPatch,
    ledger: Ledger,
    database_url: str,
    database_owner_url: str,
    tmp_path: Path,
) -> str:
    """Four entries, the newest two cut by the database's owner; Temporal not there, no anchor
    and no memory. The Temporal address the CLI is pointed at."""
    ledger.open_account("alice", "EUR", opening_balance=eur("100.00"))
    ledger.open_account("bob", "EUR")
    for number in (1, 2, 3):
        ledger.transfer(f"t-{number}", "alice", "bob", eur("10.00"), saga_id=f"s-{number}")
    ledger.seal()
    owner = create_engine(database_owner_url)
    with guards_off(owner) as db:
        assert cut_tail(db, 2) == 2
    owner.dispose()
    address = f"127.0.0.1:{closed_port()}"
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TEMPORAL_ADDRESS", address)
    monkeypatch.setenv("FUNDSAGA_DATABASE_URL", database_url)
    monkeypatch.setenv("FUNDSAGA_AUDIT_STORE", f"dir:{tmp_path / 'audit'}")
    monkeypatch.setenv("FUNDSAGA_AUDIT_ANCHOR_STORE", f"dir:{tmp_path / 'anchors'}")
    monkeypatch.setenv("FUNDSAGA_AUDIT_PUBLIC_KEYS", str(write_public_key(tmp_path)))
    monkeypatch.delenv("FUNDSAGA_AUDIT_ANCHOR_MINUTES", raising=False)  # default: anchored
    return address


async def test_a_cut_journal_nothing_vouches_for_is_a_finding(
    cut_offline: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = await fundsaga("ledger", "verify", "--output", "json")
    report = json.loads(capsys.readouterr().out)

    assert code == 1
    assert (report["entries"], report["anchored_at"], report["temporal_compared"]) == (
        2,
        None,
        False,
    )
    assert report["findings"] == [
        f"nothing vouches for the journal's length: Temporal at {cut_offline} is not reachable, "
        "no anchor names the journal although this deployment anchors it "
        "(FUNDSAGA_AUDIT_ANCHOR_MINUTES=10), and this verifier accepted no head before: a "
        "journal cut short would look intact. Verify with Temporal reachable, or pass "
        "--offline-ok to accept what was checked without it"
    ]
    assert not LEDGER_VERIFIED_HEAD.exists()  # an unvouched head is no baseline for later runs


async def test_offline_ok_passes_saying_what_was_not_checked(
    cut_offline: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = await fundsaga("ledger", "verify", "--offline-ok")
    out = capsys.readouterr().out

    assert code == 0
    assert "note: --offline-ok: NOT CHECKED: that the journal was not cut short" in out
    assert "ledger intact: 2 entries chained, no anchor yet" in out
    assert not LEDGER_VERIFIED_HEAD.exists()


async def test_a_deployment_that_anchors_nothing_is_not_told_to_pass_offline_ok(
    cut_offline: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("FUNDSAGA_AUDIT_ANCHOR_MINUTES", "0")

    code = await fundsaga("ledger", "verify", "--output", "json")

    assert (code, json.loads(capsys.readouterr().out)["findings"]) == (0, [])
