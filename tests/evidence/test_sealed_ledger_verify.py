"""`fundsaga ledger verify` on a deployment that seals every payload: with its payload keys the
verifier opens the account action records and the actions' histories; without them it says
which record it cannot read."""

from __future__ import annotations

import json

from tests.evidence.conftest import PAYLOAD_KEYS, SealedRun, fundsaga


async def test_with_the_payload_keys_every_account_change_has_its_operator(
    sealed_run: SealedRun,
) -> None:
    verified = await fundsaga(
        sealed_run, "ledger", "verify", "-o", "json", FUNDSAGA_PAYLOAD_KEYS=PAYLOAD_KEYS
    )

    assert (verified.exit_code, json.loads(verified.stdout)["findings"]) == (0, [])


async def test_without_them_the_sealed_freeze_record_is_a_finding(sealed_run: SealedRun) -> None:
    verified = await fundsaga(sealed_run, "ledger", "verify", "-o", "json")

    assert verified.stdout, verified.stderr
    findings = json.loads(verified.stdout)["findings"]
    assert verified.exit_code == 1
    assert any(
        f.startswith("account 'carol' status change 1 (frozen) has no operator action: record ")
        and f.endswith(
            "of the account is sealed: set FUNDSAGA_PAYLOAD_KEYS to check which operator action "
            "made it"
        )
        for f in findings
    ), findings
