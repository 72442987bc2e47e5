"""A rail movement (a posting on @funding: money leaving or entering through a rail) carries
the reconciliation status it is given, "not reconciled" without one; other entries carry none."""

from __future__ import annotations

import json
from pathlib import Path

from sagas.verify import NOT_RECONCILED, EvidencePack, check_report, sign_pack
from tests.evidence._offline import parked_payout
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER


def statuses(pack: EvidencePack) -> dict[int, str | None]:
    (saga,) = pack.sagas
    return {entry.entry_id: entry.rail_status for entry in saga.entries}


def test_a_rail_movement_carries_its_reconciliation_status(tmp_path: Path) -> None:
    payout = parked_payout(tmp_path)
    rail, other = payout.rail_entry, payout.other_entry

    unmatched = payout.pack(tmp_path / "memory.json")
    matched = payout.pack(tmp_path / "memory.json", {rail: "matched: camt.053 line 4"})

    assert statuses(unmatched) == {other: None, rail: NOT_RECONCILED}
    assert statuses(matched) == {other: None, rail: "matched: camt.053 line 4"}


def test_the_rail_status_is_signed_with_the_rest(tmp_path: Path) -> None:
    payout = parked_payout(tmp_path)
    report = sign_pack(payout.pack(tmp_path / "memory.json"), TEST_SIGNER)
    changed = json.loads(report.to_json())
    changed["sagas"][0]["entries"][1]["rail_status"] = "matched: by hand"

    assert check_report(report.document(), TEST_KEYS.keyring).problems == []
    assert check_report(changed, TEST_KEYS.keyring).problems == [
        f"the report carries a signature that key '{TEST_SIGNER.key_id}' did not make"
    ]
