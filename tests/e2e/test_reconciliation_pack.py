"""`fundsaga reconcile report` as a bank's auditor checks it, on a running stack: a day's camt.053
imported on the worker, its returned payment explained by one operator, resolved by her with an
adjustment beyond the break's difference that treasury approves, and approved by another. The
auditor recomputes the file's SHA-256 and counts its entries without fundsaga, finds each line
once, each operator's verified identity and own note and the adjusting entry, a proof of cash
that shows the return, and checks the signed pack offline: it verifies, fails once one byte of it
changed, and a compensation audit is not accepted in its place."""

from __future__ import annotations

import hashlib
import json
import xml.etree.ElementTree as ET
from collections.abc import Awaitable, Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from sagas.audit import AuditStore
from sagas.engine import adjustment_entry_key, resolution_id
from sagas.ledger import Ledger
from sagas.payouts import PAYOUT_CLEARING, PAYOUT_ENTRY
from sagas.reconcile import ReconcilePolicy, StatementRules
from tests.e2e.test_statement_actions import Worker, cli, worker
from tests.ledger._money import eur
from tests.reconcile.camt_documents import entry
from tests.reconcile.test_matching import sent, settle, today

__all__ = ["worker"]  # the fixture, used by name

pytestmark = pytest.mark.slow

RULES = StatementRules(policy=ReconcilePolicy(grace=timedelta()), max_bytes=200_000, max_lines=50)
CAMT = "urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"
IBAN = "DE89370400440532013000"
RETURN_DETAILS = "<RtrInf><Rsn><Cd>AC04</Cd></Rsn></RtrInf>"
Act = Callable[..., Awaitable[tuple[int, str]]]
"""`fundsaga ARGV` as the operator named first: its exit code and what it printed."""


def day_statement() -> bytes:
    """Today's camt.053: payouts a (250.00) and b (120.50), and the return of a payout the
    ledger no longer holds (5.00, AC04); opening 10000.00, closing 9634.50."""
    day = today().isoformat()
    returned = "<Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>RRTN</SubFmlyCd></Fmly></Domn>"
    entries = [
        entry(
            amount="250.00",
            booked=f"<Dt>{day}</Dt>",
            end_to_end_id=sent("a"),
            references="<AcctSvcrRef>BNK-A</AcctSvcrRef>",
        ),
        entry(
            amount="120.50",
            booked=f"<Dt>{day}</Dt>",
            end_to_end_id=sent("b"),
            references="<AcctSvcrRef>BNK-B</AcctSvcrRef>",
        ),
        entry(
            amount="5.00",
            direction="CRDT",
            booked=f"<Dt>{day}</Dt>",
            code=returned,
            end_to_end_id="OLD-PAYOUT-7",
            references="<AcctSvcrRef>BNK-R</AcctSvcrRef>",
            details=RETURN_DETAILS,
        ),
    ]

    def balance(kind: str, amount: str) -> str:
        return (
            f'<Bal><Tp><CdOrPrtry><Cd>{kind}</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">{amount}</Amt>'
            f"<CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>{day}</Dt></Dt></Bal>"
        )

    return (
        f'<?xml version="1.0" encoding="UTF-8"?><Document xmlns="{CAMT}"><BkToCstmrStmt>'
        f"<GrpHdr><MsgId>M-{day}</MsgId><CreDtTm>{day}T22:00:00Z</CreDtTm></GrpHdr>"
        f"<Stmt><Id>STMT-{day}</Id><CreDtTm>{day}T22:00:00Z</CreDtTm><FrToDt>"
        f"<FrDtTm>{day}T00:00:00Z</FrDtTm><ToDtTm>{day}T23:59:59Z</ToDtTm></FrToDt>"
        f"<Acct><Id><IBAN>{IBAN}</IBAN></Id><Ccy>EUR</Ccy></Acct>"
        f"{balance('OPBD', '10000.00')}{balance('CLBD', '9634.50')}{''.join(entries)}"
        "</Stmt></BkToCstmrStmt></Document>"
    ).encode()


def entries_of(content: bytes) -> list[tuple[str, str]]:
    """Each Ntry's (direction, amount), read without fundsaga."""
    ns = {"c": CAMT}
    return [
        (str(e.findtext("c:CdtDbtInd", namespaces=ns)), str(e.findtext("c:Amt", namespaces=ns)))
        for e in ET.fromstring(content).iterfind(".//c:Ntry", ns)
    ]


@pytest.fixture
def stage(
    worker: Worker,
    ledger: Ledger,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> Act:
    """The day's payouts a and b settled in the ledger; the CLI as the operator named."""
    ledger.declare(system_accounts=[PAYOUT_CLEARING], entry_kinds=[PAYOUT_ENTRY])
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000_000))
    settle(ledger, "a", 25_000)
    settle(ledger, "b", 12_050)

    async def as_(name: str, *argv: str) -> tuple[int, str]:
        monkeypatch.setenv("FUNDSAGA_OPERATOR", name)
        return await cli(capsys, *argv)

    return as_


async def test_the_pack_of_a_reconciled_day_is_what_an_auditor_accepts(
    worker: Worker,
    stage: Act,
    ledger: Ledger,
    audit_store: AuditStore,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    day = tmp_path / "camt053-day.xml"
    day.write_bytes(day_statement())
    pack, page, comp = (tmp_path / name for name in ("pack.json", "pack.html", "comp.json"))
    async with worker(RULES):
        imported, _ = await stage("ana", "reconcile", "import", str(day))
        (found,) = json.loads((await stage("ana", "reconcile", "breaks", "-o", "json"))[1])
        number = str(found["break"])
        await stage(
            "ana",
            "reconcile",
            "explain",
            number,
            "--note",
            "AC04 return of an old payout",
            "--evidence",
            "CASE-7",
        )
        adjust = ["--adjust-account", "alice", "--adjust-amount", "5.50"]
        await stage(
            "ana",
            "reconcile",
            "resolve",
            number,
            "--note",
            "credit alice 5.00 and the 0.50 fee she was charged",
            *adjust,
        )
        await stage("tess", "reconcile", "approve-excess", number, "--note", "fee refund agreed")
        approved, _ = await stage(
            "bob", "reconcile", "approve", number, "--note", "bank's return advice checked"
        )
        written, said = await stage(
            "auditor", "reconcile", "report", "-o", "json", "--file", str(pack), "--by", "auditor"
        )
        await stage("auditor", "reconcile", "report", "-o", "html", "--file", str(page))
        shown, text = await stage("auditor", "reconcile", "report")
        await stage("auditor", "audit", "compensations", "-o", "json", "--file", str(comp))
    resolved = next(
        r
        for r in audit_store.records(saga_id=resolution_id(int(number)))
        if r.kind == "break_resolved"
    )
    adjusting = ledger.entry(adjustment_entry_key(int(number)))

    document = json.loads(pack.read_text())
    assert (imported, approved, written, shown) == (1, 0, 0, 0), said
    assert document["verdict"]["ok"] is True, document["findings"]
    assert text.startswith("Reconciliation pack: no findings")
    assert "Compensation audit" not in text

    # The inventory: the file as the auditor hashes it, the statement as it counts it.
    (file,) = document["files"]
    (statement,) = file["statements"]
    assert (file["name"], file["sha256"]) == (
        day.name,
        hashlib.sha256(day.read_bytes()).hexdigest(),
    )
    assert file["verified_importer"]["operator"] == "ana"
    assert file["import_record"]["signed"]["payload"]["sha256"] == file["sha256"]
    assert (statement["opening"], statement["closing"]) == ("10000.00 EUR", "9634.50 EUR")
    counted = entries_of(day.read_bytes())
    assert [(x["position"], x["status"]) for x in statement["lines"]] == [
        (n, "new") for n in range(1, len(counted) + 1)
    ]
    assert [
        ("DBIT" if x["direction"] == "debit" else "CRDT", x["amount"].split()[0])
        for x in statement["lines"]
    ] == counted
    assert (
        statement["counts"]
        == statement["stated_counts"]
        == {"read": 3, "new": 3, "known": 0, "refused": 0}
    )
    payouts = {x["match"]["saga_id"] for x in statement["lines"] if x["match"]}
    assert payouts == {"payout-a", "payout-b"}
    assert statement["lines"][2]["breaks"] == [int(number)]

    # The break: every act with its verified operator and that operator's own note.
    (register,) = document["breaks"]
    acts = [(a["act"], a["operator"]["operator"], a["note"]) for a in register["acts"]]
    assert acts == [
        ("explained", "ana", "AC04 return of an old payout"),
        ("proposed", "ana", "credit alice 5.00 and the 0.50 fee she was charged"),
        ("excess_approved", "tess", "fee refund agreed"),
        ("approved", "bob", "bank's return advice checked"),
    ]
    subjects = {a["operator"]["operator"]: a["operator"]["subject"] for a in register["acts"]}
    assert subjects == {"ana": "ana", "tess": "tess", "bob": "bob"}
    assert all(a["operator"]["issuer"] for a in register["acts"])
    assert register["acts"][0]["evidence"] == "CASE-7"
    assert adjusting is not None
    assert register["adjustment"]["entry_id"] == adjusting.entry_id
    assert (register["status"], register["difference"]) == ("resolved", "5.00 EUR")

    # The break_resolved record itself names the maker and the approver, each with their note.
    payload: dict[str, Any] = dict(resolved.payload)
    assert payload["entry_id"] == adjusting.entry_id
    assert (payload["proposed_by"]["operator"], payload["proposed_by"]["note"]) == (
        "ana",
        "credit alice 5.00 and the 0.50 fee she was charged",
    )
    assert (payload["approved_by"]["operator"], payload["approved_by"]["note"]) == (
        "bob",
        "bank's return advice checked",
    )
    assert payload["approved_by"]["identity"]["subject"] == "bob"
    assert payload["excess_approved_by"]["note"] == "fee refund agreed"

    # The proof of cash: the return is the one item between the statement and the books.
    (account,) = document["proofs"]
    (proof,) = account["statements"]
    assert (account["account"], account["balances"]) == (IBAN, True)
    assert (proof["difference"], proof["explained"], proof["reconciled"]) == (
        "5.00 EUR",
        "5.00 EUR",
        False,
    )
    assert [(i["reference"], i["amount"]) for i in proof["unmatched_lines"]] == [
        ("OLD-PAYOUT-7", "5.00 EUR")
    ]
    assert proof["unmatched_movements"] == []

    # Offline: no database and no Temporal, public keys only.
    monkeypatch.setenv("TEMPORAL_ADDRESS", "127.0.0.1:9")
    monkeypatch.setenv("FUNDSAGA_DATABASE_URL", "sqlite:////nonexistent/x.db")

    async def verified(path: Path, kind: str = "reconciliation") -> tuple[int, str]:
        return await cli(capsys, "audit", "verify-report", str(path), "--kind", kind)

    tampered = tmp_path / "tampered.json"
    text_of_pack = pack.read_text()
    at = text_of_pack.index("bank's return advice checked")
    tampered.write_text(text_of_pack[:at] + "B" + text_of_pack[at + 1 :])
    ok_json, ok_html = await verified(pack), await verified(page)
    assert ok_json[0] == 0, ok_json[1]
    assert ok_json[1].startswith("reconciliation pack verified: 1 statements, 3 lines, 1 breaks")
    assert ok_html[0] == 0, ok_html[1]
    changed, why = await verified(tampered)
    assert changed == 1
    assert why.startswith("report NOT verified: ")
    assert "did not make" in why
    as_pack, refused = await verified(comp)
    assert as_pack == 1
    assert "this is a compensation audit report, not a reconciliation pack report" in refused
    as_audit, refused_too = await verified(pack, "compensations")
    assert as_audit == 1
    assert "this is a reconciliation pack report, not a compensation audit report" in refused_too
