"""The text the Temporal Web UI shows as a saga's "Current details": its status in words, the
step, the amount, and when an operator is needed, what failed and the command that resolves it.

Temporal's own status (the list's colour) cannot tell a compensated saga from a completed one,
nor a parked saga from a running one: this text, and the `SagaStatus` search attribute, do.
Built from the generic view and request only, so every saga type shows the same.

A killed saga and its recovery point at each other's page: a closed execution's details cannot
change (Temporal rebuilds them on each look from its history, up to where it was killed), so an
open saga's details always say where its recovery would be.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from sagas.engine._definition import SagaRequest
from sagas.engine._outcome import CompensationResult, OperatorDecision, SagaView
from sagas.engine._recovery import (
    OPEN_SAGA_STATUSES,
    RecoveryStatus,
    RecoveryView,
    recovery_id,
)
from sagas.engine._status import SagaStatus
from sagas.foundations import Money

MEANING: Mapping[SagaStatus, str] = {
    SagaStatus.RUNNING: "steps are being taken",
    SagaStatus.COMPLETED: "every step succeeded",
    SagaStatus.COMPENSATING: "a step failed: the steps taken are being undone, last first",
    SagaStatus.COMPENSATED: "a step failed and every step taken was undone: no net effect",
    SagaStatus.NEEDS_ATTENTION: "an operator is needed (see Resolve with)",
    SagaStatus.RESOLVED: "operators resolved it by hand",
    SagaStatus.REJECTED: "refused before it took any effect",
    SagaStatus.KILLED: "closed from outside: its recovery waits for operators",
}
"""What each status means to someone looking at the saga's page."""

KILLED_BADGES = "Terminated, Timed Out or Failed"
"""How the Web UI's badge names an execution closed from outside (see KILLED_EXECUTION_STATUSES)."""
UPDATES = "updates `retry_compensation`, `propose_resolution`, `approve_resolution`"
RECOVERY_UPDATES = "updates `propose_recovery`, `approve_recovery`"


def current_details(
    view: SagaView,
    request: SagaRequest | None,
    waiting: str | None = None,
    *,
    amount: str | None = None,
    shown_on: str | None = None,
) -> str:
    """The saga's current details as Markdown, one fact a paragraph. `amount` is the request's
    `amount_text`, when the caller keeps it (a saga's request never changes). `shown_on` is the
    workflow whose page shows them: the saga's own (None) or its recovery's."""
    lines = [f"**Status:** {view.status.value}: {MEANING[view.status]}"]
    if shown_on is not None and shown_on != view.saga_id:
        lines.append(f"**Recovery of:** {page_link(view.saga_id)}, killed")
    elif view.status in OPEN_SAGA_STATUSES:
        lines.append(
            f"**If the badge says {KILLED_BADGES}:** the saga was killed here and these "
            f"details stopped with it; its recovery {page_link(recovery_id(view.saga_id))} "
            "says what it did and what to do"
        )
    lines.append(f"**Step:** {view.current_step or '-'}")
    if amount is None:
        amount = amount_text(request)
    if amount:
        lines.append(f"**Amount:** {amount}")
    if view.status is SagaStatus.NEEDS_ATTENTION:
        lines.extend(_parked(view, _key(view, request)))
    if view.failure is not None:
        lines.append(f"**Failure:** {view.failure.reason}: {view.failure.message}")
    lines.extend(_compensations(view))
    stack = ", ".join(e.step_name for e in reversed(view.compensation_stack)) or "empty"
    lines.append(f"**Compensation stack (next first):** {stack}")
    if view.pivot is not None:
        lines.append(f"**Pivot:** {view.pivot} ({'passed' if view.pivot_passed else 'ahead'})")
    if waiting is not None:
        lines.append(f"**Waiting on infrastructure:** {waiting}")
    if view.ignored_stops:
        lines.append(f"**Ignored:** {', '.join(s.reason for s in view.ignored_stops)}")
    if view.events:
        lines.append(f"**Events:** {', '.join(f'{e.event} {e.result.value}' for e in view.events)}")
    return "\n\n".join(lines)


def page_link(workflow_id: str) -> str:
    """A Markdown link to the workflow's page in the Web UI, relative so that it holds under any
    public path; the UI puts its namespace in place of `{namespace}`."""
    return f"[{workflow_id}](namespaces/{{namespace}}/workflows/{quote(workflow_id, safe='')})"


def amount_text(request: SagaRequest | None) -> str:
    """The money the request asks for, by field when it names more than one amount."""
    amounts: dict[str, Money] = {} if request is None else request.amounts()
    if len(amounts) == 1:
        return str(next(iter(amounts.values())))
    return ", ".join(f"{name} {money}" for name, money in amounts.items())


def _key(view: SagaView, request: SagaRequest | None) -> str:
    if request is not None:
        return request.idempotency_key
    return view.saga_id.removeprefix(f"{view.saga_type}-")


def _compensations(view: SagaView) -> list[str]:
    if not view.compensations:
        return []
    done = ", ".join(f"{c.step_name} {c.result.value}" for c in view.compensations)
    return [f"**Compensations:** {done}"]


def _parked(view: SagaView, key: str) -> list[str]:
    """What waits for the operator, and the commands (and updates) that resolve it."""
    failed = next(
        (c for c in reversed(view.compensations) if c.result is CompensationResult.FAILED), None
    )
    if view.parked_on_step or failed is None:
        failure = view.failure
        step = failure.step_name if failure is not None else view.current_step
        why = _error(failure.error_type, failure.message) if failure is not None else "-"
        what = f"**Parked on step:** {step}: {why}"
        retried = "runs the step again"
    else:
        what = (
            f"**Failed compensation:** `{failed.compensation}` of step {failed.step_name}: "
            f"{_error(failed.error_type, failed.message)}"
        )
        retried = "runs the compensation again"
    command = f"fundsaga attention {{}} {key} --type {view.saga_type}"
    proposal = _open_proposal(view) or "ID"
    return [
        what,
        f"**Resolve with:** `{command.format('retry')} --note TEXT` {retried} once the cause "
        f"is fixed; or one operator `{command.format('propose')} --note TEXT` (done by hand) "
        f"and another `{command.format('approve')} --proposal {proposal}` ({UPDATES})",
    ]


def _error(error_type: str, message: str) -> str:
    """The message, led by its type unless it already is (an activity's message often is)."""
    if not error_type or message.startswith(error_type):
        return message
    return f"{error_type}: {message}"


def _open_proposal(view: SagaView) -> str | None:
    last = view.operator_actions[-1] if view.operator_actions else None
    if last is not None and last.decision is OperatorDecision.PROPOSE:
        return last.proposal_id
    return None


def recovery_details(view: RecoveryView, request: SagaRequest | None) -> str:
    """The current details of a killed saga's recovery workflow (`recovery:<saga id>`): the
    killed execution cannot change its own."""
    killed = view.killed
    key = killed.saga_id.removeprefix(f"{killed.saga_type}-")
    saga = page_link(killed.saga_id) if killed.run_id else f"{killed.saga_id} (deleted)"
    lines = [
        f"**Status:** {SagaStatus.KILLED.value}: {killed.saga_id}'s execution was "
        f"{killed.closed_as} from outside; recovery {view.status.value}",
        f"**Recovery of:** {saga}, whose own page still shows what it said when it was killed",
        f"**Step in flight:** {_in_flight(view)}",
    ]
    amount = amount_text(request)
    if amount:
        lines.append(f"**Amount:** {amount}")
    money = [f"{account} {net}" for account, net in view.effects.net_effect.items()]
    lines.append(f"**Net effect:** {'; '.join(money) or 'none'}")
    lines.append(f"**Recovery will:** {_plan(view)}")
    command = f"fundsaga attention {{}} {key} --type {killed.saga_type}"
    if killed.request is None:
        lines.append(
            "**Resolve with:** by hand: its request is no longer in Temporal's history, so it "
            "cannot be recovered from here; undo or finish its effects (above) by hand"
        )
    elif view.status is RecoveryStatus.AWAITING_PROPOSAL:
        lines.append(
            f"**Resolve with:** `{command.format('recover')} --note TEXT`, then another "
            f"operator `{command.format('approve-recovery')} --proposal ID` ({RECOVERY_UPDATES})"
        )
    elif view.status is RecoveryStatus.AWAITING_APPROVAL and view.proposal is not None:
        lines.append(
            f"**Resolve with:** another operator than {view.proposal.by.name}: "
            f"`{command.format('approve-recovery')} --proposal {view.proposal.proposal_id}`"
        )
    return "\n\n".join(lines)


def _plan(view: RecoveryView) -> str:
    snapshots = view.effects.snapshots
    if snapshots and snapshots[-1].forward_only:
        return f"finish forward from {snapshots[-1].step_name} (past the pivot)"
    return f"undo {', '.join(view.compensations) or 'nothing'}"


def _in_flight(view: RecoveryView) -> str:
    snapshots = view.effects.snapshots
    if not snapshots:
        return "-"
    return snapshots[-1].step_name
