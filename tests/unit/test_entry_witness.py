"""Each journal entry against its witness, rule by rule, on made-up journals and histories:
what Temporal saw written, what the audit trail records, and whether anchors taken before the
retention ended put the entry (and the records) past it; never the entry's own time."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest
from pydantic import JsonValue

from sagas.audit import AuditRecord
from sagas.codec import PayloadKeys, RecordSealer
from sagas.engine import EntryReceipt
from sagas.foundations import Money
from sagas.ledger import EntryKind, EntryView, PostingView
from sagas.verify import (
    AnchoredReach,
    SeenEntry,
    TemporalWitness,
    awaiting_witness,
    entry_witness_findings,
)
from sagas.verify.witness import opened_records

NOW = datetime(2026, 11, 26, 12, 0, tzinfo=UTC)
RETENTION = timedelta(days=30)
YOUNG, OLD = NOW - timedelta(hours=1), NOW - timedelta(days=31)
SAGA = "transfer-k1"
NOT_PAST = AnchoredReach()
"""No anchor was taken before the retention ended: every saga must be in Temporal."""
PAST = AnchoredReach(journal=10, audit=10, before=NOW - RETENTION)
"""Anchors taken before the retention ended cover the first ten entries and records."""


def entry(
    entry_id: int,
    key: str,
    saga_id: str | None,
    *,
    kind: str = EntryKind.TRANSFER,
    at: datetime = YOUNG,
    reverses: int | None = None,
    postings: Sequence[tuple[str, int]] = (("alice", -500), ("bob", 500)),
) -> EntryView:
    return EntryView(
        entry_id=entry_id,
        idempotency_key=key,
        saga_id=saga_id,
        kind=kind,
        reverses_entry_id=reverses,
        postings=tuple(PostingView(account, Money.of(minor, "EUR")) for account, minor in postings),
        created_at=at,
        sequence=entry_id,
        entry_hash=f"hash-{entry_id}",
    )


def seen(workflow: str, *entries: EntryView, run: str = "r1") -> list[SeenEntry]:
    return [
        SeenEntry(
            workflow,
            run,
            EntryReceipt(key=e.idempotency_key, entry_hash=e.entry_hash, saga_id=e.saga_id),
        )
        for e in entries
    ]


def temporal(
    workflows: Sequence[str], sightings: Sequence[SeenEntry] = (), in_flight: Sequence[str] = ()
) -> TemporalWitness:
    return TemporalWitness(
        frozenset(workflows), tuple(sightings), (), RETENTION, NOW, frozenset(in_flight)
    )


def record(sequence: int, kind: str, saga_id: str, payload: dict[str, JsonValue]) -> AuditRecord:
    return AuditRecord(
        sequence=sequence,
        recorded_at=NOW,
        kind=kind,
        saga_id=saga_id,
        dedupe_key=f"{saga_id}:{kind}",
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


def funding_records(
    maker: str = "ana", checker: str = "bo", amount: str = "5.00"
) -> list[AuditRecord]:
    facts: dict[str, JsonValue] = {"account_id": "bob", "amount": amount, "currency": "EUR"}
    return [
        record(1, "funding_proposed", "funding-f1", {**facts, "identity": operator(maker)}),
        record(2, "funding_approved", "funding-f1", {**facts, "identity": operator(checker)}),
    ]


def funding(at: datetime = OLD) -> EntryView:
    legs = (("@funding:EUR", -500), ("bob", 500))
    return entry(1, "funding:f1", None, kind=EntryKind.FUNDING, at=at, postings=legs)


def problems(
    entries: Sequence[EntryView],
    witness: TemporalWitness,
    records: Sequence[AuditRecord] = (),
    reach: AnchoredReach = NOT_PAST,
) -> list[str]:
    return entry_witness_findings(entries, witness, records, reach=reach)


def test_an_entry_a_step_of_its_saga_receipted_is_witnessed() -> None:
    written = entry(1, f"{SAGA}:credit:action", SAGA)

    assert problems([written], temporal([SAGA], seen(SAGA, written))) == []


def test_a_recovery_s_receipt_witnesses_the_killed_saga_s_entry() -> None:
    written = entry(1, f"{SAGA}:credit:compensation", SAGA)

    assert (
        problems([written], temporal([SAGA, f"recovery:{SAGA}"], seen(f"recovery:{SAGA}", written)))
        == []
    )


def test_an_entry_of_a_known_saga_that_no_step_receipted_is_a_finding() -> None:
    written = entry(1, f"{SAGA}:credit:action", SAGA)
    other = entry(2, "transfer-k2:credit:action", "transfer-k2")

    found = problems(
        [written, other], temporal([SAGA, "transfer-k2"], seen("transfer-k2", written, other))
    )

    assert found == [
        f"entry '{SAGA}:credit:action' has no witness: the history of {SAGA} names no such "
        "entry in any step's receipt"
    ]


def test_an_unreceipted_entry_undone_by_a_receipted_reversal_of_its_saga_is_witnessed() -> None:
    timed_out = entry(1, f"{SAGA}:capture:action", SAGA)
    undone = entry(2, f"{SAGA}:capture:compensation", SAGA, kind=EntryKind.REVERSAL, reverses=1)
    marker = entry(3, f"{SAGA}:settle:action", SAGA, kind=EntryKind.VOID_MARKER, postings=())

    assert problems([timed_out, undone, marker], temporal([SAGA], seen(SAGA, undone))) == []


def test_an_entry_of_a_saga_with_a_step_under_way_is_awaited_not_judged() -> None:
    """Its step committed and has not reported yet: the next verify judges it."""
    written = entry(1, f"{SAGA}:credit:action", SAGA)
    running = temporal([SAGA], in_flight=[SAGA])

    assert problems([written], running) == []
    assert awaiting_witness([written], running, []) == [written]
    assert awaiting_witness([written], temporal([SAGA], seen(SAGA, written), [SAGA]), []) == []


def test_what_temporal_saw_is_compared_with_the_journal_read_after_it() -> None:
    """Written between the two reads of the journal: not taken for deleted."""
    before = entry(1, f"{SAGA}:reserve:action", SAGA)
    meanwhile = entry(2, f"{SAGA}:credit:action", SAGA)
    witness = temporal([SAGA], seen(SAGA, before, meanwhile))

    assert entry_witness_findings([before], witness, [], journal=[before, meanwhile]) == []


def test_what_temporal_saw_written_and_the_ledger_lost_or_changed_is_a_finding() -> None:
    kept = entry(1, f"{SAGA}:reserve:action", SAGA)
    lost = entry(2, f"{SAGA}:credit:action", SAGA)
    changed = entry(3, f"{SAGA}:settle:action", SAGA)
    rewritten = replace(changed, entry_hash="re-hashed")

    found = problems([kept, rewritten], temporal([SAGA], seen(SAGA, kept, lost, changed)))

    assert found == [
        f"entry '{SAGA}:credit:action' is in the history of {SAGA} (run r1) but not in the "
        "ledger: it was deleted",
        f"entry '{SAGA}:settle:action' is not the entry the history of {SAGA} (run r1) saw "
        "written: the journal was rewritten",
    ]


@pytest.mark.parametrize(
    ("reach", "records", "finding"),
    [
        (NOT_PAST, ["terminal"], "Temporal does not know transfer-ghost, yet the entry is not"),
        (PAST, [], "Temporal does not know transfer-ghost (it never ran on this task queue"),
        (
            replace(PAST, audit=0),
            ["terminal"],
            "Temporal does not know transfer-ghost (it never ran on this task queue",
        ),
        (PAST, ["terminal"], None),
    ],
)
def test_an_entry_of_a_saga_temporal_does_not_know_needs_an_early_anchor_and_a_record(
    reach: AnchoredReach, records: list[str], finding: str | None
) -> None:
    """Past retention only when a journal anchor taken before it ended covers the entry, and
    then only a record an audit anchor taken before then covers witnesses the saga."""
    ghost = entry(1, "transfer-ghost:credit:action", "transfer-ghost", at=OLD)
    trail = [record(1, kind, "transfer-ghost", {}) for kind in records]

    found = problems([ghost], temporal([SAGA]), trail, reach)

    if finding is None:
        assert found == []
    else:
        (only,) = found
        assert only.startswith(f"entry '{ghost.idempotency_key}' has no witness: {finding}")


@pytest.mark.parametrize("sealed_at", [11, None])
def test_an_entry_stamped_long_ago_but_not_anchored_before_the_retention_ended_is_young(
    sealed_at: int | None,
) -> None:
    """The backdating attack: a worker's key signs an entry stamped 31 days back and a record
    naming an invented saga; sealed after the early anchors (or not at all), it is young."""
    backdated = replace(
        entry(11, "transfer-ghost:credit:action", "transfer-ghost", at=OLD), sequence=sealed_at
    )

    (found,) = problems(
        [backdated], temporal([SAGA]), [record(1, "terminal", "transfer-ghost", {})], PAST
    )

    assert found == (
        "entry 'transfer-ghost:credit:action' has no witness: Temporal does not know "
        f"transfer-ghost, yet the entry is not past the namespace's retention ({RETENTION}): "
        "unsealed, or no journal anchor taken before the retention ended covers it; its "
        "history must be there (it never ran, or it was deleted)"
    )


MARGIN = replace(PAST, journal_margin=20, audit_margin=20)
"""The first anchors taken after the retention ended name entry and record 20."""


@pytest.mark.parametrize(
    ("sealed_at", "record_at", "judged"),
    [
        (15, 1, False),  # sealed between the anchors either side of the retention's end
        (5, 15, False),  # past retention, its record between the audit anchors
        (21, 1, True),  # sealed after the first anchor past the retention's end: young
        (5, 21, True),  # its record written after that anchor: no witness
    ],
)
def test_an_entry_between_the_anchors_either_side_of_the_retention_s_end_is_not_judged_yet(
    sealed_at: int, record_at: int, judged: bool
) -> None:
    """Temporal may have dropped a saga that closed just before the retention ended, while the
    anchor covering its entries was taken just after: no time the writer wrote can tell, so
    such an entry waits for a later run (counted, never accepted); beyond that anchor it is
    judged young, as an entry written now by a worker's key is."""
    ghost = replace(
        entry(sealed_at, "transfer-gone:credit:action", "transfer-gone", at=OLD),
        sequence=sealed_at,
    )
    trail = [record(record_at, "terminal", "transfer-gone", {})]
    witness = temporal([SAGA])

    found = problems([ghost], witness, trail, MARGIN)
    waiting = awaiting_witness([ghost], witness, trail, reach=MARGIN)

    assert (found != [], waiting == []) == (judged, judged)


def test_without_an_anchor_after_the_retention_s_end_nothing_is_in_the_margin() -> None:
    """A deployment that anchored nothing for a whole retention: fail closed."""
    ghost = entry(15, "transfer-gone:credit:action", "transfer-gone", at=OLD)

    assert problems([ghost], temporal([SAGA]), [], PAST) != []
    assert awaiting_witness([ghost], temporal([SAGA]), [], reach=PAST) == []


def test_an_entry_whose_key_is_not_its_saga_s_is_a_finding_past_retention_too() -> None:
    stray = entry(1, "elsewhere:credit:action", "transfer-ghost", at=OLD)

    found = problems([stray], temporal([]), [record(1, "terminal", "transfer-ghost", {})], PAST)

    assert found == [
        "entry 'elsewhere:credit:action' has no witness: Temporal does not know "
        "transfer-ghost, and the key is none of its steps'"
    ]


def test_money_created_by_two_verified_operators_is_witnessed_past_retention() -> None:
    assert problems([funding()], temporal([]), funding_records(), PAST) == []


def test_funding_records_not_anchored_before_the_retention_ended_witness_no_forgotten_funding() -> (
    None
):
    (found,) = problems([funding()], temporal([]), funding_records(), replace(PAST, audit=1))

    assert found == (
        "entry 'funding:f1' has no witness: Temporal does not know funding-f1, and among the "
        "records covered by an anchor taken before the retention ended: no signed audit record "
        "says a verified operator approved funding-f1"
    )


@pytest.mark.parametrize(
    ("records", "finding"),
    [
        ([], "no signed audit record says a verified operator approved funding-f1"),
        (
            funding_records(checker="ana"),
            "funding-f1 was proposed and approved by the same operator",
        ),
        (funding_records(amount="50.00"), "record 2 approved 50.00 EUR into bob, the entry moves"),
        (
            funding_records()[1:],
            "no signed audit record of a verified operator proposing funding-f1",
        ),
    ],
)
def test_money_created_without_two_verified_operators_is_a_finding(
    records: list[AuditRecord], finding: str
) -> None:
    (found,) = problems([funding()], temporal([]), records, PAST)

    assert found.startswith(f"entry 'funding:f1' has no witness: {finding}")


def test_an_opening_balance_posted_straight_to_the_ledger_is_a_finding() -> None:
    legs = (("@funding:EUR", -500), ("bob", 500))
    opening = entry(1, "open:bob", None, kind=EntryKind.FUNDING, postings=legs)

    (found,) = problems([opening], temporal([]), funding_records(), PAST)

    assert found == (
        "entry 'open:bob' has no witness: a funding entry of no saga and no funding: money "
        "nobody approved (an opening balance or adjustment posted straight to the ledger)"
    )


def test_a_young_funding_needs_its_history_and_its_receipt() -> None:
    young = funding(at=YOUNG)

    unknown = problems([young], temporal([]), funding_records())
    unreceipted = problems([young], temporal(["funding-f1"]), funding_records())
    receipted = problems(
        [young], temporal(["funding-f1"], seen("funding-f1", young)), funding_records()
    )

    assert [f.split(": ", 1)[1] for f in unknown + unreceipted] == [
        f"Temporal does not know funding-f1, yet the entry is not past the namespace's "
        f"retention ({RETENTION}): unsealed, or the namespace's retention is unknown; its "
        "history must be there (it never ran, or it was deleted)",
        "the history of funding-f1 names no such entry: not posted by that funding",
    ]
    assert receipted == []


def test_funding_records_the_deployment_sealed_are_read_with_its_payload_keys() -> None:
    """With payload keys the audit store seals who approved what: without the keys the
    witness cannot be checked, which is said; with them it is."""
    keys = PayloadKeys.parse(PayloadKeys.generate("k1"))
    assert keys is not None
    seal = RecordSealer(keys).seal
    sealed = [r.model_copy(update={"payload": seal(dict(r.payload))}) for r in funding_records()]

    assert problems([funding()], temporal([]), sealed, PAST) == [
        "entry 'funding:f1' has no witness: record 2 of funding-f1 is sealed: set "
        "FUNDSAGA_PAYLOAD_KEYS to check who approved what"
    ]
    assert problems([funding()], temporal([]), opened_records(sealed, keys), PAST) == []


def test_judging_by_the_writer_s_time_warns_it_is_deprecated() -> None:
    witness = temporal([SAGA])

    with pytest.warns(DeprecationWarning, match="AnchoredReach"):
        assert witness.must_know(YOUNG) is True
    with pytest.warns(DeprecationWarning, match="AnchoredReach"):
        assert witness.must_know(OLD) is False
