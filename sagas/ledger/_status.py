"""Account status as evidence: every change is an append-only row signed by its writer, and
an account's status must be its latest change's (a trigger refuses any other update).

So a status set with plain SQL is refused, and one set with a forged change row, or rolled
back to an earlier signed state, is a finding of `ledger verify`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC

from pydantic import JsonValue
from sqlalchemy import select
from sqlalchemy.orm import Session

from sagas.foundations import canonical_json, not_before, sha256_hex
from sagas.ledger._clock import transaction_now
from sagas.ledger._models import Account, AccountStatusChange
from sagas.ledger._signing import SignatureProblem, signer_of
from sagas.ledger._views import AccountStatus, StatusChangeView

MIGRATED = "migrated"
"""The key_id of the change revision 0011 recorded for a status set before it (unsigned)."""


def status_message(change: AccountStatusChange) -> bytes:
    content: dict[str, JsonValue] = {
        "account_id": change.account_id,
        "version": change.version,
        "status": change.status,
        "changed_at": change.changed_at.astimezone(UTC).isoformat(),
    }
    return f"fundsaga account status {sha256_hex(canonical_json(content))}".encode()


def change_status(session: Session, row: Account, status: AccountStatus) -> None:
    """Record the (locked) account's next status change, signed, then apply it."""
    now = transaction_now(session)
    change = AccountStatusChange(
        account_id=row.account_id, version=row.status_version + 1, status=status, changed_at=now
    )
    signer = signer_of(session)
    if signer is not None:
        change.key_id, change.signature = signer.key_id, signer.sign(status_message(change))
    session.add(change)
    session.flush()  # the account's trigger looks for the change
    row.status, row.status_version = status, change.version
    row.updated_at = not_before(now, row.updated_at)
    session.flush()


def status_changes(session: Session) -> list[StatusChangeView]:
    """Every recorded status change, by account and version."""
    query = select(AccountStatusChange).order_by(
        AccountStatusChange.account_id, AccountStatusChange.version
    )
    return [
        StatusChangeView(
            account_id=change.account_id,
            version=change.version,
            status=AccountStatus(change.status),
            changed_at=change.changed_at,
            migrated=change.key_id == MIGRATED and change.signature is None,
        )
        for change in session.scalars(query)
    ]


def status_findings(session: Session, problem: SignatureProblem) -> Iterator[str]:
    """Each account whose status is not its latest signed change, and each change not signed."""
    changes: dict[str, list[AccountStatusChange]] = {}
    query = select(AccountStatusChange).order_by(
        AccountStatusChange.account_id, AccountStatusChange.version
    )
    for change in session.scalars(query):
        changes.setdefault(change.account_id, []).append(change)
    for row in session.scalars(select(Account).order_by(Account.account_id)):
        recorded = changes.get(row.account_id, [])
        yield from _changes_findings(row.account_id, recorded, problem)
        latest = recorded[-1].status if recorded else AccountStatus.ACTIVE
        if row.status != latest or row.status_version != len(recorded):
            yield (
                f"account {row.account_id!r} is {row.status} (version {row.status_version}), "
                f"but its recorded status changes end {latest} at version {len(recorded)}: "
                "its status was set behind the ledger's back"
            )


def _changes_findings(
    account_id: str, recorded: list[AccountStatusChange], problem: SignatureProblem
) -> Iterator[str]:
    for expected, change in enumerate(recorded, start=1):
        where = f"account {account_id!r} status change {change.version} ({change.status})"
        if change.version != expected:
            yield f"{where}: changes before it are missing: deleted"
        if change.key_id == MIGRATED and change.signature is None:
            continue
        if change.key_id is None or change.signature is None:
            yield f"{where}: is not signed"
            continue
        found = problem(change.key_id, change.signature, status_message(change))
        if found is not None:
            yield f"{where}: {found}"
