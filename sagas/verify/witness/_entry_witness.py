"""Every journal entry against its witness, and every entry a witness saw against the journal.

- Temporal saw it written (a ledger receipt) and the ledger no longer holds it, or holds
  another entry under its key: the journal was cut short or rewritten.
- A saga's entry: the saga's history (its own, or its recovery's) names it in a receipt. An
  entry whose attempt's completion Temporal never recorded (a timed-out attempt) is witnessed
  by the receipted reversal that undid it; a void marker (a compensation that came first,
  no postings) by its saga alone, since the compensation returns no entry to receipt. While
  the saga has a step under way, an entry no receipt names yet is not judged.
- A saga Temporal does not know: past the namespace's retention, a signed audit record naming
  the saga. Past retention means that a journal anchor taken before the retention ended covers
  the entry's sealed place, and only records an audit-chain anchor taken before then covers
  count (`AnchoredReach`): never the entry's own time, which its writer stamps and signs.
  Records name sagas, not entries; a saga that completes writes one only with
  FUNDSAGA_AUDIT_COMPLETED=true, so past retention a completed saga's entries are witnessed
  only in a deployment that records completions. Any other entry (unsealed, or not anchored
  that early) is young: Temporal must still hold its saga's history, and none is a finding,
  whatever the audit trail says (a worker host holds the key that signs records too).
- An entry of no saga: an audited funding by two verified operators (`AuditedFundings`), and
  its funding's receipt while Temporal holds that history (it must, for a young entry); past
  retention, records anchored before it ended.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sagas.audit import AuditRecord
from sagas.engine import funding_of_entry
from sagas.ledger import EntryKind, EntryView
from sagas.verify.witness._anchored_reach import NOTHING_ANCHORED, AnchoredReach
from sagas.verify.witness._funding_witness import AuditedFundings
from sagas.verify.witness._temporal_histories import SeenEntry, TemporalWitness

COMPLETED_SETTING = "FUNDSAGA_AUDIT_COMPLETED"


def entry_witness_findings(
    entries: Sequence[EntryView],
    temporal: TemporalWitness,
    records: Iterable[AuditRecord],
    *,
    journal: Sequence[EntryView] | None = None,
    reach: AnchoredReach = NOTHING_ANCHORED,
) -> list[str]:
    """First what Temporal saw that the journal lost, then each entry without a witness, in
    journal order. `entries` is the journal as read before Temporal, `journal` as read after
    (default: `entries`); `records` are the audit trail's verified records; `reach` says which
    entries and records anchors put before the retention's end (by default none: every saga
    must be in Temporal). An entry of a saga with a step under way is not judged
    (`awaiting_witness`)."""
    now = entries if journal is None else journal
    findings = list(temporal.problems) + _lost(now, temporal.seen)
    witnesses = _Witnesses.of(entries, temporal, records, reach)
    for entry in entries:
        problem = witnesses.problem(entry)
        if problem is not None:
            findings.append(f"entry '{entry.idempotency_key}' has no witness: {problem}")
    return findings


def awaiting_witness(
    entries: Sequence[EntryView],
    temporal: TemporalWitness,
    records: Iterable[AuditRecord],
    *,
    reach: AnchoredReach = NOTHING_ANCHORED,
) -> list[EntryView]:
    """Entries not judged: no receipt names them yet, and their saga has a step under way."""
    witnesses = _Witnesses.of(entries, temporal, records, reach)
    return [entry for entry in entries if witnesses.awaiting(entry)]


def _lost(entries: Sequence[EntryView], seen: Iterable[SeenEntry]) -> list[str]:
    by_key = {entry.idempotency_key: entry for entry in entries}
    findings: list[str] = []
    reported: set[str] = set()
    for sight in sorted(seen, key=lambda s: (s.workflow_id, s.receipt.key)):
        key = sight.receipt.key
        stored = by_key.get(key)
        where = f"the history of {sight.workflow_id} (run {sight.run_id})"
        intact = stored is not None and stored.entry_hash == sight.receipt.entry_hash
        if key in reported or intact:
            continue
        reported.add(key)
        if stored is None:
            findings.append(f"entry '{key}' is in {where} but not in the ledger: it was deleted")
        else:
            findings.append(
                f"entry '{key}' is not the entry {where} saw written: the journal was rewritten"
            )
    return findings


@dataclass(frozen=True)
class _Witnesses:
    temporal: TemporalWitness
    receipted: frozenset[tuple[str, str]]
    """(saga or funding whose history holds the receipt, entry key)."""
    undone: frozenset[int]
    """Entry ids reversed by an entry of the same saga that its history receipted."""
    audited_sagas: frozenset[str]
    """Sagas a record anchored before the retention ended names."""
    fundings: AuditedFundings
    anchored_fundings: AuditedFundings
    """The funding records anchored before the retention ended: a forgotten funding's witness."""
    reach: AnchoredReach
    in_the_margin: frozenset[str]
    """Sagas and fundings a record between the audit anchors either side of the retention's
    end names: whether it counts is judged on a later run."""

    @classmethod
    def of(
        cls,
        entries: Sequence[EntryView],
        temporal: TemporalWitness,
        records: Iterable[AuditRecord],
        reach: AnchoredReach,
    ) -> _Witnesses:
        records = list(records)
        receipted = frozenset((s.history_of, s.receipt.key) for s in temporal.seen)
        saga_of = {entry.entry_id: entry.saga_id for entry in entries}
        undone = frozenset(
            entry.reverses_entry_id
            for entry in entries
            if entry.reverses_entry_id is not None
            and entry.saga_id is not None
            and (entry.saga_id, entry.idempotency_key) in receipted
            and saga_of.get(entry.reverses_entry_id) == entry.saga_id
        )
        anchored = [record for record in records if reach.witnesses_past_retention(record)]
        return cls(
            temporal,
            receipted,
            undone,
            frozenset(record.saga_id for record in anchored),
            AuditedFundings.of(records),
            AuditedFundings.of(anchored),
            reach,
            frozenset(record.saga_id for record in records if reach.record_in_the_margin(record)),
        )

    def awaiting(self, entry: EntryView) -> bool:
        """Whether the entry lacks a witness while its saga or funding has a step under way,
        or while the anchors either side of the retention's end cannot tell whether its
        history may be gone (`AnchoredReach.journal_margin`)."""
        history = entry.saga_id or funding_of_entry(entry.idempotency_key)
        if history is None or self._problem(entry) is None:
            return False
        if history in self.temporal.in_flight:
            return True
        if self.temporal.knows(history):
            return False
        return self.reach.in_the_margin(entry) or (
            self.reach.may_be_forgotten(entry) and history in self.in_the_margin
        )

    def problem(self, entry: EntryView) -> str | None:
        """Why nothing witnesses the entry; None when something does, or it is awaited."""
        return None if self.awaiting(entry) else self._problem(entry)

    def _problem(self, entry: EntryView) -> str | None:
        if entry.saga_id is None:
            return self._funding_problem(entry)
        saga, key = entry.saga_id, entry.idempotency_key
        if self.temporal.knows(saga):
            if (saga, key) in self.receipted or entry.entry_id in self.undone or _marker(entry):
                return None
            return f"the history of {saga} names no such entry in any step's receipt"
        if not key.startswith(f"{saga}:"):
            return f"Temporal does not know {saga}, and the key is none of its steps'"
        if not self.reach.may_be_forgotten(entry):
            return self._unknown_yet_young(saga)
        if saga in self.audited_sagas:
            return None
        return (
            f"Temporal does not know {saga} (it never ran on this task queue, or its history "
            f"is past retention) and no signed audit record covered by an anchor taken before "
            f"the retention ended names it (a saga that completes writes one only with "
            f"{COMPLETED_SETTING}=true)"
        )

    def _funding_problem(self, entry: EntryView) -> str | None:
        problem = self.fundings.problem(entry)
        if problem is not None:
            return problem
        funding = funding_of_entry(entry.idempotency_key)
        assert funding is not None  # a witnessed funding has a funding key
        if not self.temporal.knows(funding):
            if not self.reach.may_be_forgotten(entry):
                return self._unknown_yet_young(funding)
            anchored = self.anchored_fundings.problem(entry)
            if anchored is None:
                return None
            return (
                f"Temporal does not know {funding}, and among the records covered by an anchor "
                f"taken before the retention ended: {anchored}"
            )
        if (funding, entry.idempotency_key) not in self.receipted:
            return f"the history of {funding} names no such entry: not posted by that funding"
        return None

    def _unknown_yet_young(self, workflow: str) -> str:
        return (
            f"Temporal does not know {workflow}, yet the entry is not past the namespace's "
            f"retention ({self.temporal.retention}): unsealed, or {self.reach.describe()}; "
            "its history must be there (it never ran, or it was deleted)"
        )


def _marker(entry: EntryView) -> bool:
    return entry.kind == EntryKind.VOID_MARKER and not entry.postings
