"""How the CLI shows sagas of any type: a listing, a view with its snapshots, an outcome."""

from __future__ import annotations

from sagas.app._output import Shown, listing
from sagas.engine import (
    BatchItemOutcome,
    BatchOutcome,
    BatchView,
    SagaOutcome,
    SagaView,
    StepFailure,
    item_counts,
)

SAGA_COLUMNS = ("saga_id", "saga_type", "key", "status")


def sagas_shown(found: list[tuple[str, str, str]]) -> Shown:
    """(saga id, saga type, status) rows as `FundsagaClient.list_sagas` returns them."""
    records = [
        {"saga_id": sid, "saga_type": kind, "key": key_of(sid, kind), "status": status}
        for sid, kind, status in found
    ]
    return listing(records, SAGA_COLUMNS)


def key_of(saga_id: str, saga_type: str) -> str:
    """The caller's key inside a saga id (`<saga type>-<key>`)."""
    return saga_id.removeprefix(f"{saga_type}-")


def view_shown(view: SagaView) -> Shown:
    if isinstance(view, BatchView):
        running = f"{view.status.value}, {len(view.items)} of {view.total} ended, "
        return _batch_shown(view, view.items, running + f"running: {view.running or '-'}")
    lines = [f"{view.saga_id}: {view.status.value} (step: {view.current_step or '-'})"]
    if view.failure is not None:
        lines.append(f"  failure: {failure_text(view.failure)}")
    rows = [
        [
            s.step_index,
            s.step_name,
            s.status,
            s.attempt,
            s.recorded_at,
            ",".join(e.step_name for e in s.compensation_stack) or "-",
        ]
        for s in view.snapshots
    ]
    columns = ("#", "step", "status", "attempt", "recorded_at", "compensation stack")
    return Shown(data=view, lines=lines, columns=columns, rows=rows)


def outcome_shown(outcome: SagaOutcome) -> Shown:
    if isinstance(outcome, BatchOutcome):
        return _batch_shown(outcome, outcome.items, f"{outcome.status.value}")
    lines = [f"{outcome.saga_id}: {outcome.status.value}"]
    if outcome.failure is not None:
        lines.append(f"  failure: {failure_text(outcome.failure)}")
    rows = [[c.at, c.step_name, c.result, c.message] for c in outcome.compensations]
    columns = ("at", "step", "result", "message") if rows else ()
    return Shown(data=outcome, lines=lines, columns=columns, rows=rows)


def failure_text(failure: StepFailure) -> str:
    return f"{failure.reason.value} at {failure.step_name or '-'}: {failure.message}"


def _batch_shown(data: SagaOutcome | SagaView, items: list[BatchItemOutcome], state: str) -> Shown:
    counts = ", ".join(f"{status} {n}" for status, n in item_counts(items).items()) or "none"
    lines = [f"{data.saga_id}: {state}", f"  items: {counts}"]
    rows = [
        [i.number, i.saga_id, i.status, failure_text(i.failure) if i.failure else i.note]
        for i in items
    ]
    return Shown(data=data, lines=lines, columns=("#", "saga", "status", "why"), rows=rows)
