"""Statement balances through the CLI and the worker: a no-movement day imported and proven, a
gap between two days and an unbalanced statement each a break, and balances in two currencies
refused naming the field with nothing written."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sagas.audit import AuditStore
from sagas.ledger import Ledger
from tests.e2e.test_statement_actions import (
    RULES,
    Worker,
    cli,
    count,
    statement_records,
    verify,
    worker,
)

__all__ = ["worker"]

_CAMT = "urn:iso:std:iso:20022:tech:xsd:camt.053.001.04"


def _day(day: int, opening: str, closing: str, closing_ccy: str = "EUR") -> bytes:
    """A Nordic bank's camt.053.001.04 of a day with no movement: OPBD and CLBD, no Ntry, and
    the account without Ccy."""

    def bal(kind: str, amount: str, ccy: str) -> str:
        return (
            f'<Bal><Tp><CdOrPrtry><Cd>{kind}</Cd></CdOrPrtry></Tp><Amt Ccy="{ccy}">{amount}'
            f"</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-{day:02d}</Dt></Dt></Bal>"
        )

    return (
        f'<?xml version="1.0" encoding="UTF-8"?><Document xmlns="{_CAMT}"><BkToCstmrStmt>'
        f"<GrpHdr><MsgId>N{day}</MsgId><CreDtTm>2026-11-{day:02d}T23:00:00Z</CreDtTm></GrpHdr>"
        f"<Stmt><Id>SE-STMT-2026-11-{day:02d}</Id><CreDtTm>2026-11-{day:02d}T23:00:00Z</CreDtTm>"
        "<Acct><Id><IBAN>SE4550000000058398257466</IBAN></Id></Acct>"
        f"{bal('OPBD', opening, 'EUR')}{bal('CLBD', closing, closing_ccy)}"
        "</Stmt></BkToCstmrStmt></Document>"
    ).encode()


_UNBALANCED = b"""\
:20:RB261106
:25:NL44RABO0123456789
:28C:00312
:60F:C261105EUR800,00
:61:2611061106D30,00NMSCNONREF//RB-0001
:86:/REMI/Card terminal rent
:62F:C261106EUR780,00
"""


async def test_balances_checked_through_the_cli(
    worker: Worker,
    ledger: Ledger,
    audit_store: AuditStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    quiet, gap, unbalanced = (tmp_path / n for n in ("d3.xml", "d4.xml", "rb.sta"))
    quiet.write_bytes(_day(3, "800.00", "800.00"))
    gap.write_bytes(_day(4, "750.00", "750.00"))
    unbalanced.write_bytes(_UNBALANCED)
    async with worker(RULES):
        imported, _ = await cli(capsys, "reconcile", "import", str(quiet))
        proved, proof_out = await cli(capsys, "reconcile", "proof", "-o", "json")
        gapped, _ = await cli(capsys, "reconcile", "import", str(gap))
        off, _ = await cli(capsys, "reconcile", "import", str(unbalanced))
        listed = json.loads((await cli(capsys, "reconcile", "breaks", "-o", "json"))[1])
        shown, proof_text = await cli(capsys, "reconcile", "proof")
        verified, findings = await verify(capsys)

    (proof,) = json.loads(proof_out)["proofs"]
    assert (imported, proved) == (0, 0)
    assert (proof["statement_id"], proof["closing"], proof["ledger_balance"]) == (
        "SE-STMT-2026-11-03",
        "800.00 EUR",
        "800.00 EUR",
    )
    assert (proof["balances"], proof["reconciled"]) == (True, True)
    assert (gapped, off) == (1, 1)  # 1: breaks are open
    by_kind = {b["kind"]: b for b in listed}
    # The rent debit is no rail movement of the ledger's: missing_in_ledger, as any such line.
    assert set(by_kind) == {"statement_gap", "statement_unbalanced", "missing_in_ledger"}
    assert "SE-STMT-2026-11-03" in by_kind["statement_gap"]["detail"]
    assert by_kind["statement_gap"]["reference"] == "SE-STMT-2026-11-04"
    assert by_kind["statement_unbalanced"]["reference"] == "RB261106/00312"
    assert "770.00 EUR" in by_kind["statement_unbalanced"]["detail"]
    assert "780.00 EUR" in by_kind["statement_unbalanced"]["detail"]
    assert shown == 1  # the unbalanced statement's proof does not balance
    assert "DOES NOT BALANCE" in proof_text
    assert (verified, findings) == (0, [])


async def test_balances_in_two_currencies_are_refused_naming_the_field(
    worker: Worker,
    ledger: Ledger,
    audit_store: AuditStore,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    file = tmp_path / "mixed.xml"
    file.write_bytes(_day(3, "800.00", "800.00", closing_ccy="SEK"))
    async with worker(RULES):
        code, out = await cli(capsys, "reconcile", "import", str(file))

    assert code == 2
    assert "Stmt/Bal[2]/Amt/@Ccy" in out
    assert "SEK" in out
    assert [count(ledger, t) for t in ("statement_file", "statement_line")] == [0, 0]
    assert statement_records(audit_store) == []
