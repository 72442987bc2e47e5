"""The funding witness against records a worker host could sign with the audit key: an approval
of another amount than the one proposed, and an approval of a funding that expired unapproved.

Past Temporal's retention these records are an old funding's only witness, so the records must
agree among themselves."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import JsonValue

from sagas.audit import AuditRecord
from sagas.foundations import Money
from sagas.ledger import EntryKind, EntryView, PostingView
from sagas.verify.witness import AuditedFundings

AT = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)


def record(sequence: int, kind: str, payload: dict[str, JsonValue]) -> AuditRecord:
    return AuditRecord(
        sequence=sequence,
        recorded_at=AT,
        kind=kind,
        saga_id="funding-f1",
        dedupe_key=f"funding-f1:{kind}:{sequence}",
        payload=payload,
        prev_hash="0" * 64,
        key_id="k",
        hash="h",
        signature="s",
    )


def operator(subject: str) -> dict[str, JsonValue]:
    return {
        "issuer": "idp",
        "subject": subject,
        "name": subject,
        "roles": ["operator", "approver"],
        "token_sha256": "0" * 64,
        "expires_at": "2099-01-01T00:00:00Z",
    }


def funded(amount: str, who: str) -> dict[str, JsonValue]:
    return {"account_id": "bob", "amount": amount, "currency": "EUR", "identity": operator(who)}


def entry(minor: int) -> EntryView:
    legs = (("@funding:EUR", -minor), ("bob", minor))
    return EntryView(
        entry_id=1,
        idempotency_key="funding:f1",
        saga_id=None,
        kind=EntryKind.FUNDING,
        reverses_entry_id=None,
        postings=tuple(PostingView(account, Money.of(m, "EUR")) for account, m in legs),
        created_at=AT,
        sequence=1,
        entry_hash="hash-1",
    )


def problem(minor: int, *records: AuditRecord) -> str | None:
    return AuditedFundings.of(records).problem(entry(minor))


def test_a_funding_approved_as_proposed_is_witnessed() -> None:
    proposed = record(1, "funding_proposed", funded("5.00", "ana"))
    approved = record(2, "funding_approved", funded("5.00", "bo"))

    assert problem(500, proposed, approved) is None


def test_an_approval_of_another_amount_than_proposed_is_a_finding() -> None:
    proposed = record(1, "funding_proposed", funded("5.00", "ana"))
    approved = record(2, "funding_approved", funded("5000.00", "bo"))

    assert problem(500_000, proposed, approved) == (
        "record 2 approves 5000.00 EUR into bob, but record 1 proposed 5.00 EUR into bob"
    )


def test_an_approval_of_a_funding_that_expired_unapproved_is_a_finding() -> None:
    proposed = record(1, "funding_proposed", funded("5.00", "ana"))
    expired = record(2, "funding_expired", {"account_id": "bob", "amount": "5.00"})
    approved = record(3, "funding_approved", funded("5.00", "bo"))

    assert problem(500, proposed, expired, approved) == (
        "record 2 says funding-f1 expired unapproved, yet record 3 approves it"
    )
