"""`fundsaga audit verify-report`: a report checked offline with public keys only passes as
written and fails, naming the first problem, once anything in it was changed."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from sagas.audit import SigningKey
from sagas.ledger import EntryProof, proof_hash
from tests.evidence.conftest import PAYLOAD_KEYS, Deployment, EvidenceRun, SealedRun, fundsaga

pytestmark = pytest.mark.long

Document = dict[str, Any]
OFFLINE = {
    "TEMPORAL_ADDRESS": "127.0.0.1:9",
    "FUNDSAGA_DATABASE_URL": "sqlite:////nonexistent/x.db",
}
"""What verify-report runs with: no Temporal and no database to reach."""


@pytest.fixture(scope="module")
async def written(evidence_run: EvidenceRun) -> tuple[Path, Path]:
    """The report as JSON and as HTML."""
    paths = evidence_run.home / "report.json", evidence_run.home / "report.html"
    for path, form in zip(paths, ("json", "html"), strict=True):
        made = await fundsaga(
            evidence_run, "audit", "compensations", "-o", form, "--file", str(path)
        )
        assert made.exit_code == 0, made.stdout + made.stderr
    return paths


async def verified(run: Deployment, path: Path, *keys: Path) -> tuple[int, str]:
    trusted = [word for key in keys for word in ("--public-key", str(key))]
    result = await fundsaga(run, "audit", "verify-report", str(path), *trusted, **OFFLINE)
    return result.exit_code, result.stdout + result.stderr


def worker_key(run: Deployment) -> Path:
    return run.home / "audit-signing.pub"


def frozen_saga(document: Document, run: EvidenceRun) -> Document:
    found: Document = next(s for s in document["sagas"] if s["saga_id"] == run.frozen)
    return found


async def test_a_report_as_written_verifies_offline_as_json_and_as_html(
    evidence_run: EvidenceRun, written: tuple[Path, Path]
) -> None:
    document = json.loads(written[0].read_text())
    sagas = document["sagas"]
    entries, records = sum(len(s["entries"]) for s in sagas), sum(len(s["records"]) for s in sagas)
    expected = (
        f"report verified: {len(sagas)} sagas, {entries} entries, {records} records, "
        f"signed by {document['signature']['key_id']}\n"
    )

    for path in written:
        assert await verified(evidence_run, path) == (0, expected)
        assert await verified(evidence_run, path, worker_key(evidence_run)) == (0, expected)


def changed_amount(document: Document, run: EvidenceRun) -> None:
    frozen_saga(document, run)["entries"][0]["postings"][0]["amount"] = "-11.00 EUR"


def changed_amount_rehashed(document: Document, run: EvidenceRun) -> None:
    """The amount changed and the entry's hash made again: only its writer's key could sign."""
    entry = frozen_saga(document, run)["entries"][0]
    posting = entry["postings"][0]
    posting["amount"] = "-11.00 EUR"
    postings = tuple(
        (p["account_id"], "EUR", int(p["amount"].replace(".", "").split()[0]), p["balance_after"])
        for p in entry["postings"]
    )
    proof = EntryProof(
        entry_id=entry["entry_id"],
        key=entry["idempotency_key"],
        saga_id=entry["saga_id"],
        kind=entry["kind"],
        reverses_entry_id=None,
        created_at=datetime.fromisoformat(entry["created_at"]),
        postings=postings,
        writer_link=None,
        entry_hash="",
        key_id=None,
        signature=None,
        seal=None,
    )
    entry["entry_hash"] = proof_hash(proof)


def changed_record_hash(document: Document, run: EvidenceRun) -> None:
    record = frozen_saga(document, run)["records"][0]
    record["hash"] = ("0" if record["hash"][0] != "0" else "1") + record["hash"][1:]


def changed_signature(document: Document, run: EvidenceRun) -> None:
    other = SigningKey.generate().sign(b"something else")
    document["signature"]["value"] = other


def changed_total(document: Document, run: EvidenceRun) -> None:
    document["totals"][0]["moved"] = "21.00 EUR"


def changed_verdict(document: Document, run: EvidenceRun) -> None:
    frozen_saga(document, run)["verdict"]["reason"] = "all good, trust me"


TAMPERED: list[tuple[Callable[[Document, EvidenceRun], None], str]] = [
    (changed_amount, r"entry \d+ \('[^']+'\): its content and postings do not hash"),
    (changed_amount_rehashed, r"entry \d+ \('[^']+'\): carries a signature that key"),
    (changed_record_hash, r"audit record \d+: its signed content does not hash to its hash"),
    (changed_signature, r"the report carries a signature that key '\w+' did not make"),
    (changed_total, r"the totals are not the sums of the sagas listed: changed"),
    (changed_verdict, r"the report carries a signature that key '\w+' did not make"),
]


@pytest.mark.parametrize(("change", "problem"), TAMPERED, ids=[t[0].__name__ for t in TAMPERED])
async def test_a_changed_json_report_fails_naming_the_first_problem(
    evidence_run: EvidenceRun,
    written: tuple[Path, Path],
    change: Callable[[Document, EvidenceRun], None],
    problem: str,
    tmp_path: Path,
) -> None:
    document = json.loads(written[0].read_text())
    change(document, evidence_run)
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(document, indent=2))

    code, out = await verified(evidence_run, tampered)

    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith("report NOT verified: ")
    assert re.search(problem, first), out


async def test_a_changed_page_fails_whether_its_json_or_its_text_was_changed(
    evidence_run: EvidenceRun, written: tuple[Path, Path], tmp_path: Path
) -> None:
    page = written[1].read_text()
    head, script = page.split('<script type="application/json" id="evidence">')
    in_json = (
        head
        + '<script type="application/json" id="evidence">'
        + script.replace('"amount": "-10.00 EUR"', '"amount": "-11.00 EUR"', 1)
    )
    in_text = page.replace("20.00 EUR", "10.00 EUR", 1)
    assert in_json != page
    assert in_text != page
    outcomes = []
    for name, text in (("json", in_json), ("text", in_text)):
        path = tmp_path / f"{name}.html"
        path.write_text(text)
        outcomes.append(await verified(evidence_run, path))

    (json_code, json_out), (text_code, text_out) = outcomes
    assert json_code == 1
    assert "its content and postings do not hash to its entry_hash" in json_out.splitlines()[0]
    assert (text_code, text_out) == (
        1,
        "report NOT verified: the page shows other than its signed JSON renders to: its HTML "
        "was changed\n",
    )


async def test_a_key_not_in_the_keyring_fails(
    evidence_run: EvidenceRun, written: tuple[Path, Path], tmp_path: Path
) -> None:
    stranger = tmp_path / "stranger.key"
    public = SigningKey.generate().write(stranger)

    code, out = await verified(evidence_run, written[0], public)

    assert code == 1
    assert "which is not a trusted key" in out.splitlines()[0]


async def test_an_auditor_signs_with_their_own_key_and_a_keyless_report_says_it_is_unsigned(
    evidence_run: EvidenceRun, tmp_path: Path
) -> None:
    run = evidence_run
    auditor = SigningKey.generate()
    auditor_public = auditor.write(tmp_path / "auditor.key")
    signed, unsigned = tmp_path / "signed.json", tmp_path / "unsigned.json"
    keyless = {
        "FUNDSAGA_AUDIT_SIGNING_KEY": str(tmp_path / "none.key"),
        "FUNDSAGA_AUDIT_PUBLIC_KEYS": str(worker_key(run)),
    }

    by_auditor = await fundsaga(
        run, "audit", "compensations", "-o", "json", "--file", str(signed),
        "--sign-key", str(tmp_path / "auditor.key"), **keyless,
    )  # fmt: skip
    without_key = await fundsaga(
        run, "audit", "compensations", "-o", "json", "--file", str(unsigned), **keyless
    )

    assert by_auditor.exit_code == 0, by_auditor.stdout + by_auditor.stderr
    assert json.loads(by_auditor.stdout)["signed_by"] == auditor.key_id
    assert json.loads(signed.read_text())["signature"]["key_id"] == auditor.key_id
    worker_only = await verified(run, signed, worker_key(run))
    assert worker_only[0] == 1
    assert (
        f"the report is signed by key '{auditor.key_id}', which is not a trusted key"
        in (worker_only[1])
    )
    both = await verified(run, signed, worker_key(run), auditor_public)
    assert both[0] == 0
    assert both[1].endswith(f"signed by {auditor.key_id}\n")
    assert without_key.exit_code == 0, without_key.stdout + without_key.stderr
    said = json.loads(without_key.stdout)
    assert (said["signed_by"], said["not_signed"]) == (
        None,
        f"no key at {tmp_path / 'none.key'} (FUNDSAGA_AUDIT_SIGNING_KEY) and no --sign-key",
    )
    assert json.loads(unsigned.read_text())["signature"] is None
    code, out = await verified(run, unsigned, worker_key(run))
    assert code == 1
    assert out.splitlines()[0] == (
        "report NOT verified: the report is not signed: nothing proves who made it or that it "
        "is unchanged"
    )


async def test_a_report_of_a_deployment_that_seals_payloads_verifies_without_its_keys(
    sealed_run: SealedRun, tmp_path: Path
) -> None:
    """Made with and without the payload keys, which open the sealed request for the report
    (without them, who approved the funding cannot be read: a finding of `ledger verify`);
    verified without them: each record was hashed and signed sealed, and is listed so."""
    run = sealed_run
    opened, unopened = tmp_path / "opened.json", tmp_path / "unopened.json"

    with_keys = await fundsaga(
        run, "audit", "compensations", "-o", "json", "--file", str(opened),
        FUNDSAGA_PAYLOAD_KEYS=PAYLOAD_KEYS,
    )  # fmt: skip
    without = await fundsaga(run, "audit", "compensations", "-o", "json", "--file", str(unopened))

    assert with_keys.exit_code == 0, with_keys.stdout + with_keys.stderr
    assert without.exit_code == 1, without.stdout + without.stderr
    assert "is sealed: set FUNDSAGA_PAYLOAD_KEYS" in without.stdout
    for path, requested in ((opened, "3.00 EUR"), (unopened, None)):
        (saga,) = json.loads(path.read_text())["sagas"]
        assert (saga["saga_id"], saga["requested"], saga["moved"]) == (
            run.sealed,
            requested,
            "3.00 EUR",
        )
        (record,) = saga["records"]
        assert "sealed" in record["signed"]["payload"]
        assert "input" not in record["signed"]["payload"]
        code, out = await verified(run, path)
        assert code == 0, out
        assert out.startswith("report verified: 1 sagas, 3 entries, 1 records, signed by ")
