"""The reconciliation pack as an auditor checks it, built from the reconciliation's tables, the
ledger and a signed audit trail (no Temporal): the inventory's hashes recomputed from the files,
every line of each statement once at its place, the proof of cash of a clean day and of one
that is not, acts of old and new records, and the signed report checked offline: refused once
one byte of it changed, and never taken for a compensation audit."""

from __future__ import annotations

import hashlib
import json
import uuid
from dataclasses import replace
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Any

import pytest
from pydantic import JsonValue

from sagas.audit import AnchoredAuditStore, AnchorStore, open_audit_store
from sagas.engine import resolution_id
from sagas.foundations import InvalidRequestError, Money, load_settings
from sagas.ledger import Ledger
from sagas.payouts import EXTERNAL_PAYOUT_SAGA, PAYOUT_CLEARING, PAYOUT_ENTRY
from sagas.reconcile import (
    Balance,
    BreakKind,
    ImportResult,
    LineDirection,
    LineKind,
    LineTransaction,
    PeriodScope,
    ReconcilePolicy,
    Reconciliation,
    Statement,
    StatementFormat,
    StatementLine,
    read_statements,
)
from sagas.reconcile._break_places import BreakPlaces, break_places
from sagas.verify import (
    ReconciliationPack,
    ReconciliationRequest,
    ReportKind,
    build_reconciliation_pack,
    check_report,
    sign_pack,
    sign_reconciliation,
    sources_of,
    verify_ledger,
    verify_trail,
)
from tests.evidence._offline import parked_payout
from tests.fixtures_audit import TEST_KEYS, TEST_SIGNER
from tests.ledger._money import eur
from tests.reconcile.fixture_files import FIXTURES
from tests.reconcile.test_matching import sent, settle, today

ISSUER = "https://idp.test"
DAY = today()
"""The day the tests' payouts settle: their statements are of it."""


@pytest.fixture
def books(ledger: Ledger) -> Reconciliation:
    ledger.declare(system_accounts=[PAYOUT_CLEARING], entry_kinds=[PAYOUT_ENTRY])
    ledger.open_account("alice", "EUR", opening_balance=eur(1_000_000))
    return Reconciliation(ledger, [EXTERNAL_PAYOUT_SAGA], ReconcilePolicy(grace=timedelta()))


@pytest.fixture
def store(tmp_path: Path) -> AnchoredAuditStore:
    return AnchoredAuditStore(
        open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS),
        AnchorStore(open_audit_store(f"dir:{tmp_path / 'anchors'}", TEST_KEYS)),
        100,
    )


def line(
    bank: str | None, minor: int, *, paid: str | None = None, credit: bool = False, on: date = DAY
) -> StatementLine:
    """A payout paid out (`paid`: its key, whose end-to-end id it carries), or a credit."""
    return StatementLine(
        bank_reference=bank,
        end_to_end_id=None if paid is None else sent(paid),
        direction=LineDirection.CREDIT if credit else LineDirection.DEBIT,
        amount=eur(minor),
        booking_date=on,
        value_date=on,
        kind=LineKind.RETURN if credit else LineKind.PAYOUT,
    )


def statement(
    statement_id: str,
    *lines: StatementLine,
    opening: int | None = None,
    account: str = "DE89370400440532013000",
    on: date = DAY,
) -> Statement:
    """The day's statement; with `opening`, its balances, the closing one the lines' sum."""
    moved = sum(x.amount.minor * (1 if x.direction is LineDirection.CREDIT else -1) for x in lines)

    def balance(minor: int) -> Balance:
        return Balance(amount=Money.of(minor, "EUR"), day=on, field="Stmt/Bal")

    return Statement(
        format=StatementFormat.CAMT053,
        statement_id=statement_id,
        account=account,
        currency="EUR",
        period_start=datetime.combine(on, time(0), UTC),
        period_end=datetime.combine(on, time(23, 59, 59), UTC),
        lines=lines,
        opening=None if opening is None else balance(opening),
        closing=None if opening is None else balance(opening + moved),
    )


def imported(
    books: Reconciliation, store: AnchoredAuditStore, read: Statement, operator: str = "ana"
) -> tuple[bytes, ImportResult]:
    """The statement imported as the worker's action does, with its signed record: the file's
    bytes (its own, made up for the test) and what the import did."""
    content = f"{read!r} {uuid.uuid4()}".encode()
    action = f"statement-action-{uuid.uuid4().hex[:12]}"
    name = f"{read.statement_id}.xml"
    result = books.import_statement(
        read, content, name=name, imported_by=operator, action_id=action
    )
    record_import(store, action, name, result, operator)
    return content, result


def imported_file(
    books: Reconciliation, store: AnchoredAuditStore, content: bytes, name: str
) -> ImportResult:
    """A file of several statements imported as the worker's action does, with its record."""
    action = f"statement-action-{uuid.uuid4().hex[:12]}"
    result = books.import_statements(
        read_statements(content), content, name=name, imported_by="ana", action_id=action
    )
    record_import(store, action, name, result, "ana")
    return result


def record_import(
    store: AnchoredAuditStore, action: str, name: str, result: ImportResult, operator: str
) -> None:
    statements: list[JsonValue] = [s.facts() for s in result.statements]
    store.append(
        kind="statement_imported",
        saga_id=action,
        dedupe_key=f"{action}:statement_imported",
        payload={
            "file": name,
            "sha256": result.sha256,
            "file_id": result.file_id,
            "statements": statements,
            **operator_facts(operator),
        },
    )


def operator_facts(name: str, note: str | None = None) -> dict[str, JsonValue]:
    facts: dict[str, JsonValue] = {
        "operator": name,
        "identity": {"issuer": ISSUER, "subject": f"sub-{name}", "name": name},
    }
    return facts if note is None else facts | {"note": note}


def pack_of(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path, scope: PeriodScope | None
) -> ReconciliationPack:
    request = ReconciliationRequest(
        scope=scope or PeriodScope(), sources=sources_of(load_settings()), operator="auditor"
    )
    return build_reconciliation_pack(
        books,
        store,
        request,
        trail=verify_trail(store, None, tmp_path / "verified-anchor.json"),
        journal=verify_ledger(books.ledger, store.anchors, TEST_KEYS.keyring),
    )


def signed(pack: ReconciliationPack) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(sign_reconciliation(pack, TEST_SIGNER).to_json())
    return document


def test_the_inventory_holds_each_file_as_hashed_and_who_imported_it(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path
) -> None:
    settle(books.ledger, "a", 25_000)
    content, result = imported(books, store, statement("S1", line("B1", 25_000, paid="a")))

    (file,) = pack_of(books, store, tmp_path, None).files

    assert file.sha256 == hashlib.sha256(content).hexdigest()
    assert (file.file_id, file.name, file.format) == (result.file_id, "S1.xml", "camt.053")
    assert file.verified_importer is not None
    assert (file.verified_importer.operator, file.verified_importer.subject) == ("ana", "sub-ana")
    assert file.import_record is not None
    assert file.import_record.signed["saga_id"] == file.action_id
    (shown,) = file.statements
    assert (shown.statement_id, shown.account, shown.currency) == (
        "S1",
        "DE89370400440532013000",
        "EUR",
    )
    assert shown.counts == shown.stated_counts
    assert (shown.counts.read, shown.counts.new) == (1, 1)


def test_every_line_of_each_statement_appears_once_at_its_place(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path
) -> None:
    for key, minor in (("a", 25_000), ("b", 12_050), ("c", 990)):
        settle(books.ledger, key, minor)
    first = statement("S1", line("B1", 25_000, paid="a"), line("B2", 12_050, paid="b"))
    # Sent again with one line added and one booking changed under a known reference.
    again = statement(
        "S1",
        line("B1", 25_000, paid="a"),
        line("B2", 12_000, paid="b"),
        line("B3", 990, paid="c"),
    )
    imported(books, store, first)
    imported(books, store, again)

    pack = pack_of(books, store, tmp_path, None)

    earlier, later = (file.statements[0] for file in pack.files)
    assert [(x.position, x.status) for x in earlier.lines] == [(1, "new"), (2, "new")]
    assert [(x.position, x.status) for x in later.lines] == [
        (1, "known"),
        (2, "refused"),
        (3, "new"),
    ]
    assert [len(again.lines), len(first.lines)] == [later.counts.read, earlier.counts.read]
    (conflict,) = [b for b in pack.breaks if b.kind == BreakKind.STATEMENT_CONFLICT]
    assert later.lines[1].breaks == [conflict.break_id]
    assert conflict.files == [pack.files[1].file_id]
    kept = [x.line_id for s in (earlier, later) for x in s.lines if x.line_id is not None]
    assert len(kept) == len(set(kept)) == 3
    assert {x.amount: x.match.saga_id for x in earlier.lines if x.match} == {
        "250.00 EUR": "payout-a",
        "120.50 EUR": "payout-b",
    }
    assert later.counts.model_dump() == {"read": 3, "new": 1, "known": 1, "refused": 1}
    assert later.stated_counts == later.counts


def test_a_clean_day_s_proof_of_cash_balances_with_nothing_to_reconcile(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path
) -> None:
    settle(books.ledger, "a", 25_000)
    settle(books.ledger, "b", 12_050)
    day = statement(
        "S1", line("B1", 25_000, paid="a"), line("B2", 12_050, paid="b"), opening=1_000_000
    )
    imported(books, store, day)

    pack = pack_of(books, store, tmp_path, None)

    (account,) = pack.proofs
    (proof,) = account.statements
    assert (account.account, account.currency) == ("DE89370400440532013000", "EUR")
    assert (account.opening, account.movements, account.closing) == (
        "10000.00 EUR",
        "-370.50 EUR",
        "9629.50 EUR",
    )
    assert (proof.ledger_balance, proof.difference) == ("9629.50 EUR", "0.00 EUR")
    assert (account.balances, proof.balances, proof.reconciled) == (True, True, True)
    assert proof.unmatched_lines == proof.unmatched_movements == []
    assert pack.breaks == []
    assert (pack.verdict.ok, pack.findings) == (True, [])


def test_a_batch_booking_matched_by_its_transactions_leaves_nothing_to_reconcile(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path
) -> None:
    settle(books.ledger, "a", 25_000)
    settle(books.ledger, "b", 12_050)
    parts = (
        LineTransaction(end_to_end_id=sent("a"), amount=eur(25_000)),
        LineTransaction(end_to_end_id=sent("b"), amount=eur(12_050)),
    )
    batch = replace(line("B1", 37_050), transactions=parts)
    imported(books, store, statement("S1", batch, opening=1_000_000))

    pack = pack_of(books, store, tmp_path, None)

    ((shown,),) = [s.lines for f in pack.files for s in f.statements]
    ((proof,),) = [account.statements for account in pack.proofs]
    assert [t.match.saga_id for t in shown.transactions if t.match] == ["payout-a", "payout-b"]
    assert (proof.unmatched_lines, proof.unmatched_movements) == ([], [])
    assert (proof.ledger_balance, proof.closing, proof.reconciled) == (
        "9629.50 EUR",
        "9629.50 EUR",
        True,
    )
    assert pack.verdict.ok, pack.findings


def test_a_day_that_does_not_reconcile_lists_the_unmatched_items_on_each_side(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path
) -> None:
    settle(books.ledger, "a", 25_000)
    missing = settle(books.ledger, "gone", 4_000)
    day = statement(
        "S1", line("B1", 25_000, paid="a"), line("B9", 500, credit=True), opening=1_000_000
    )
    imported(books, store, day)

    pack = pack_of(books, store, tmp_path, None)

    (account,) = pack.proofs
    (proof,) = account.statements
    (returned,) = proof.unmatched_lines
    (unbooked,) = proof.unmatched_movements
    assert (returned.amount, returned.reference) == ("5.00 EUR", "B9")
    assert (unbooked.item_id, unbooked.amount, unbooked.saga_id) == (
        missing,
        "-40.00 EUR",
        "payout-gone",
    )
    assert (proof.difference, proof.explained) == ("45.00 EUR", "45.00 EUR")
    assert (proof.balances, proof.reconciled) == (True, False)
    kinds = {b.kind for b in pack.breaks}
    assert kinds == {BreakKind.MISSING_IN_LEDGER, BreakKind.MISSING_IN_STATEMENT}
    assert not pack.verdict.ok
    assert sum(", open " in f for f in pack.findings) == 2
    assert all(b.age_seconds >= 0 and b.closed_at is None for b in pack.breaks)


def test_a_statement_that_does_not_add_up_is_a_proof_that_does_not_balance(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path
) -> None:
    settle(books.ledger, "a", 25_000)
    day = statement("S1", line("B1", 25_000, paid="a"), opening=1_000_000)
    wrong = Balance(amount=eur(980_000), day=DAY, field="Stmt/Bal[2]")
    imported(books, store, Statement(**{**vars(day), "closing": wrong}))

    pack = pack_of(books, store, tmp_path, None)

    ((proof,),) = [account.statements for account in pack.proofs]
    assert (proof.adds_up, proof.balances) == (False, False)
    assert any("does not balance" in finding for finding in pack.findings)
    (unbalanced,) = pack.breaks
    assert pack.files[0].statements[0].breaks == [unbalanced.break_id]


def test_each_statement_of_a_file_of_several_is_listed_once_at_its_place_with_its_proof(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path
) -> None:
    """ING's three days in one MT940, whose second day's ING-0302 an earlier statement holds
    with another amount; Rabobank's two statements under the same :20: and :28C:."""
    ing = (FIXTURES / "mt940_ing_three_days.sta").read_bytes()
    rabobank = (Path(__file__).parent / "dialects" / "mt940_rabobank.sta").read_bytes()
    account = "NL20INGB0001234567EUR"
    imported(books, store, statement("EARLIER", line("ING-0302", 999), account=account))
    ing_file = imported_file(books, store, ing, "ing-week.sta")
    rabo_file = imported_file(books, store, rabobank, "rabo.sta")

    pack = pack_of(books, store, tmp_path, None)

    files = {file.file_id: file for file in pack.files}
    ing_shown, rabo_shown = files[ing_file.file_id], files[rabo_file.file_id]
    read = read_statements(ing)
    assert [(s.position, s.statement_id) for s in ing_shown.statements] == [
        (n, s.statement_id) for n, s in enumerate(read, 1)
    ]
    for shown, source in zip(ing_shown.statements, read, strict=True):
        assert [line.position for line in shown.lines] == list(range(1, len(source.lines) + 1))
        assert shown.counts == shown.stated_counts
    day_two = ing_shown.statements[1]
    assert [line.status for line in day_two.lines] == ["new", "refused", "new"]
    refused = day_two.lines[1]
    (conflict,) = [b for b in pack.breaks if b.kind == BreakKind.STATEMENT_CONFLICT]
    assert refused.breaks == [conflict.break_id]
    assert conflict.files == [ing_file.file_id]
    assert [line.bank_reference for line in day_two.lines if line.status == "new"] == [
        "ING-0301",
        "ING-0303",
    ]
    others = [s for n, s in enumerate(ing_shown.statements) if n != 1]
    assert all(line.status == "new" for s in others for line in s.lines)
    kept = [line.line_id for f in pack.files for s in f.statements for line in s.lines]
    assert len([k for k in kept if k is not None]) == len({k for k in kept if k is not None})

    assert [s.statement_id for s in rabo_shown.statements] == ["940S261102/0"] * 2
    assert [s.position for s in rabo_shown.statements] == [1, 2]
    assert [[line.amount for line in s.lines] for s in rabo_shown.statements] == [
        ["125.00 EUR", "10.00 EUR"],
        ["125.00 EUR", "40.00 EUR"],
    ]
    proofs = {proof.account: proof for proof in pack.proofs}
    rabo, ing_proof = proofs["NL44RABO0123456789"], proofs[account]
    assert [(p.file_id, p.position) for p in rabo.statements] == [
        (rabo_file.file_id, 1),
        (rabo_file.file_id, 2),
    ]
    assert [p.statement_lines for p in rabo.statements] == ["-135.00 EUR", "-85.00 EUR"]
    assert (rabo.opening, rabo.closing, rabo.chained) == ("2500.00 EUR", "2280.00 EUR", True)
    assert [(p.file_id, p.position) for p in ing_proof.statements] == [
        (ing_file.file_id, n) for n in (1, 2, 3)
    ]
    # Day two's proof holds the lines kept with it: the refused one is not among them.
    assert ing_proof.statements[1].statement_lines == "-151.00 EUR"

    document = signed(pack)
    assert check_report(document, TEST_KEYS.keyring).problems == []
    document["files"][1]["statements"][1]["position"] = 3
    del document["signature"]
    forged = sign_reconciliation(ReconciliationPack.model_validate(document), TEST_SIGNER)
    problems = check_report(forged.document(), TEST_KEYS.keyring).problems
    assert any("its statement 2" in p and "not in the inventory" in p for p in problems)


@pytest.mark.parametrize(
    ("key", "places"),
    [
        ("statement_unbalanced:statement:12", BreakPlaces(statement_ids=(12,))),
        ("statement_unbalanced:file:7", BreakPlaces(statement_ids=(7,))),
        ("statement_gap:12:13", BreakPlaces(statement_ids=(12, 13))),
        ("statement_conflict:40:7:3", BreakPlaces(refused_at=(7, 1, 3))),
        ("statement_conflict:40:7.2:3", BreakPlaces(refused_at=(7, 2, 3))),
        ("statement_conflict:40:7.x:3", BreakPlaces()),
    ],
    ids=["unbalanced", "unbalanced before 0019", "gap", "conflict", "conflict later", "garbled"],
)
def test_a_break_key_names_the_statements_it_is_about(key: str, places: BreakPlaces) -> None:
    """Balance breaks name statements (a file's id before files held several: its one
    statement's); a conflict, its file, the statement's place in it and the line's."""
    assert break_places(key) == places


def test_a_period_and_an_account_select_statements_by_their_days(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path
) -> None:
    later = DAY + timedelta(days=1)
    imported(books, store, statement("D3", line("B1", 100, credit=True)))
    imported(books, store, statement("D4", line("B2", 200, credit=True, on=later), on=later))
    imported(
        books,
        store,
        statement(
            "X4", line("B3", 300, credit=True, on=later), on=later, account="NL91ABNA0417164300"
        ),
    )

    def shown(scope: PeriodScope) -> list[str]:
        pack = pack_of(books, store, tmp_path, scope)
        return [s.statement_id for f in pack.files for s in f.statements]

    assert shown(PeriodScope(since=later)) == ["D4", "X4"]
    assert shown(PeriodScope(until=DAY)) == ["D3"]
    assert shown(PeriodScope(accounts=frozenset({"NL91ABNA0417164300"}))) == ["X4"]
    register = pack_of(books, store, tmp_path, PeriodScope(until=DAY)).breaks
    assert [b.statement_amount for b in register] == ["1.00 EUR"]
    with pytest.raises(InvalidRequestError) as backwards:
        PeriodScope(since=later, until=DAY)
    assert backwards.value.field == "--from"


def resolved_by_two(books: Reconciliation, store: AnchoredAuditStore, *, old: bool) -> int:
    """A break explained by ana, proposed by ana and approved by bob, recorded as the worker
    records them; `old`: its break_resolved record as written before it named both."""
    imported(books, store, statement("S1", line("B9", 500, credit=True)))
    (found,) = books.breaks()
    number = found.break_id
    books.explain(number, note="the bank returned it", evidence="CASE-7", operator="ana")
    explained: dict[str, JsonValue] = {"break_id": number, "kind": "missing_in_ledger"}
    explained["evidence"] = "CASE-7"
    action = f"statement-action-{uuid.uuid4().hex[:12]}"
    store.append(
        kind="break_explained",
        saga_id=action,
        dedupe_key=f"{action}:break_explained",
        payload=explained | operator_facts("ana", "the bank returned it"),
    )
    subject = resolution_id(number)
    proposal: dict[str, JsonValue] = {"break_id": number, "note": "credit the customer"}
    store.append(
        kind="break_resolution_proposed",
        saga_id=subject,
        dedupe_key=f"{subject}:p",
        payload=proposal | operator_facts("ana"),
    )
    books.resolve(number, resolved_by="ana (proposed), bob (approved)")
    resolved = proposal | {"entry_id": None} | operator_facts("bob")
    if not old:
        resolved |= {
            "proposed_by": operator_facts("ana", "credit the customer"),
            "approved_by": operator_facts("bob", "seen the bank's advice"),
        }
    store.append(
        kind="break_resolved", saga_id=subject, dedupe_key=f"{subject}:r", payload=resolved
    )
    return number


@pytest.mark.parametrize("old", [False, True], ids=["naming both", "before it named both"])
def test_each_act_shows_its_verified_operator_and_their_own_note(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path, old: bool
) -> None:
    number = resolved_by_two(books, store, old=old)

    pack = pack_of(books, store, tmp_path, None)
    checked = check_report(signed(pack), TEST_KEYS.keyring, ReportKind.RECONCILIATION)

    (found,) = pack.breaks
    acts = [
        (act.act, act.operator.operator if act.operator else None, act.note) for act in found.acts
    ]
    assert (found.break_id, found.status, found.closed_at is not None) == (number, "resolved", True)
    assert acts == [
        ("explained", "ana", "the bank returned it"),
        ("proposed", "ana", "credit the customer"),
        ("approved", "bob", None if old else "seen the bank's advice"),
    ]
    assert found.acts[0].evidence == "CASE-7"
    assert {act.operator.subject for act in found.acts if act.operator} == {"sub-ana", "sub-bob"}
    assert (checked.ok, checked.problems) == (True, [])


def test_the_signed_pack_verifies_offline_and_fails_once_one_byte_changes(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path
) -> None:
    resolved_by_two(books, store, old=False)
    settle(books.ledger, "a", 25_000)
    imported(books, store, statement("S2", line("B1", 25_000, paid="a"), opening=1_000_000))
    text = sign_reconciliation(pack_of(books, store, tmp_path, None), TEST_SIGNER).to_json()

    def checked(changed: str) -> list[str]:
        return check_report(json.loads(changed), TEST_KEYS.keyring).problems

    assert checked(text) == []
    for old, new in (('"250.00 EUR"', '"350.00 EUR"'), ("seen the bank", "seen the bonk")):
        at = text.index(old)
        changed = text[:at] + new + text[at + len(old) :]
        assert sum(a != b for a, b in zip(text, changed, strict=True)) == 1
        problems = checked(changed)
        assert problems[-1].startswith("the report carries a signature that key "), problems
        assert len(problems) == 2  # and the content no longer agrees with itself


def test_a_figure_changed_and_signed_again_is_found_by_recomputing_it(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path
) -> None:
    """Whoever holds a signing key still cannot make the pack say what its content denies."""
    settle(books.ledger, "a", 25_000)
    imported(books, store, statement("S1", line("B1", 25_000, paid="a"), opening=1_000_000))
    document = signed(pack_of(books, store, tmp_path, None))
    document["proofs"][0]["statements"][0]["difference"] = "1.00 EUR"
    document["files"][0]["statements"][0]["lines"][0]["status"] = "known"
    del document["signature"]
    forged = sign_reconciliation(ReconciliationPack.model_validate(document), TEST_SIGNER)

    problems = check_report(forged.document(), TEST_KEYS.keyring).problems

    assert any("its figures do not follow" in p for p in problems), problems
    assert any("its counts are not those of its lines" in p for p in problems), problems


def test_a_compensation_audit_is_never_taken_for_a_reconciliation_pack(
    books: Reconciliation, store: AnchoredAuditStore, tmp_path: Path
) -> None:
    home = tmp_path / "comp"
    home.mkdir()
    parked = parked_payout(home)
    compensations = sign_pack(parked.pack(home / "memory.json"), TEST_SIGNER).document()
    reconciliation = signed(pack_of(books, store, tmp_path, None))
    parked.store.close_connections()
    parked.ledger.close_connections()

    as_reconciliation = check_report(compensations, TEST_KEYS.keyring, ReportKind.RECONCILIATION)
    as_compensations = check_report(reconciliation, TEST_KEYS.keyring, ReportKind.COMPENSATIONS)
    relabelled = dict(compensations, format=reconciliation["format"])

    assert check_report(compensations, TEST_KEYS.keyring).kind is ReportKind.COMPENSATIONS
    assert check_report(reconciliation, TEST_KEYS.keyring).ok
    assert as_reconciliation.problems == [
        "this is a compensation audit report, not a reconciliation pack report: its signed "
        "format says so"
    ]
    assert not as_compensations.ok
    assert "not a compensation audit report" in as_compensations.problems[0]
    assert not check_report(relabelled, TEST_KEYS.keyring, ReportKind.RECONCILIATION).ok
