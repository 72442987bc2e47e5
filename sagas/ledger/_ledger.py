"""The Ledger service: every public method is one database transaction."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import datetime
from typing import TypeVar

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from sagas.engine import RunClaim, Snapshot
from sagas.foundations import (
    DatabaseTimeouts,
    HostClock,
    Money,
    SagaIdReusedError,
    UnknownAccountError,
    host_now,
    make_engine,
    translate_db_errors,
)
from sagas.ledger import (
    _chain,
    _claims,
    _holds,
    _invariants,
    _journal,
    _lifecycle,
    _posting,
    _proofs,
    _receipts,
    _reversal,
    _sealer,
    _signing,
    _snapshots,
    _status,
    _sweep,
    _transfer,
)
from sagas.ledger._accounts import KNOWN_SYSTEM_INFO, account_views, find_account_row
from sagas.ledger._clock import HOST_CLOCK_INFO
from sagas.ledger._declarations import DECLARED_INFO, Declarations
from sagas.ledger._models import Account, Hold, JournalEntry
from sagas.ledger._posting import Leg
from sagas.ledger._proofs import EntryProof
from sagas.ledger._signing import SIGNER_INFO, RowSigner, SignatureProblem
from sagas.ledger._views import (
    AccountStatus,
    AccountView,
    ChainHead,
    EntryView,
    HoldView,
    StatusChangeView,
    entry_view,
    hold_view,
)

T = TypeVar("T")
R = TypeVar("R")


@dataclass
class _PendingStep:
    claim: RunClaim
    snapshot: Snapshot | None
    settled: bool = False
    """Committed with the first transaction of the block, or refused by the fence."""


_pending_step: ContextVar[_PendingStep | None] = ContextVar("fundsaga_pending_step", default=None)
_REMEMBERED_CLAIMS = 10_000


class Ledger:
    """Double-entry accounts, holds and journal entries; every effect is keyed and idempotent.

    Business refusals raise BusinessError subclasses, bad input InvalidRequestError, and
    transient database faults TransientError subclasses; nothing is written when any is raised.
    Rows are stamped with the database's time: on PostgreSQL its server's clock, which no worker
    can skew; on SQLite, which runs in this process, `clock` (the host's).
    """

    def __init__(
        self, engine: Engine, *, signer: RowSigner | None = None, clock: HostClock = host_now
    ) -> None:
        """With `signer`, every entry and hold this ledger writes carries its signature; a
        ledger that is verified needs every writer to sign (unsigned rows are findings)."""
        self.engine = engine
        self._signer = signer
        self._clock = clock
        self._declared = Declarations()
        self._claims: dict[str, str] = {}
        """Claims this process saw committed: a claim never changes, so one check per saga."""
        self._known_system: dict[str, str] = {}
        """System accounts whose rows this process saw committed (they are never deleted)."""

    @classmethod
    def from_url(
        cls,
        url: str,
        *,
        signer: RowSigner | None = None,
        clock: HostClock = host_now,
        timeouts: DatabaseTimeouts | None = None,
    ) -> Ledger:
        """A ledger on the database at `url`, which must already be migrated; its sessions wait
        at most `timeouts` (None: a worker's)."""
        return cls(make_engine(url, timeouts=timeouts), signer=signer, clock=clock)

    def close_connections(self) -> None:
        """Release the pooled database connections (the ledger can be used again after)."""
        self.engine.dispose()

    def declare(
        self, *, system_accounts: Iterable[str] = (), entry_kinds: Iterable[str] = ()
    ) -> None:
        """Make `@<role>:<currency>` system accounts of these roles, created on first use, and
        let `post` write entries of these kinds; adds to what was declared before.

        Roles and kinds are 1-32 and 1-16 lowercase letters, digits, '_' or '-'; the built-in
        ones (funding, clearing; EntryKind) are refused, nothing being declared then.
        """
        self._declared = self._declared.adding(system_accounts, entry_kinds)

    def open_account(
        self,
        account_id: str,
        currency: str,
        *,
        opening_balance: Money | None = None,
        overdraft: Money | None = None,
    ) -> AccountView:
        """Open an active account; an opening balance is funded under key `open:<account_id>`."""
        return self._run(
            lambda s: _lifecycle.open_account(
                s, account_id, currency, opening_balance=opening_balance, overdraft=overdraft
            )
        )

    def fund(self, key: str, account_id: str, amount: Money) -> EntryView:
        """Bring `amount` from @funding into the account as a 'funding' entry."""
        return self._run(lambda s: _lifecycle.fund(s, key, account_id, amount))

    def adjust(self, key: str, account_id: str, amount: Money) -> EntryView:
        """Money between the account and the outside world (@funding), as an operator's
        adjustment: a positive amount credits the account, a negative one debits it."""
        return self._run(lambda s: _lifecycle.adjust(s, key, account_id, amount))

    def account(self, account_id: str) -> AccountView:
        view = self.find_account(account_id)
        if view is None:
            raise UnknownAccountError(f"no account {account_id!r}")
        return view

    def find_account(self, account_id: str) -> AccountView | None:
        def found(session: Session) -> AccountView | None:
            row = find_account_row(session, account_id)
            return None if row is None else account_views(session, [row])[0]

        return self._run(found)

    def accounts(self, *, include_system: bool = False) -> list[AccountView]:
        """Accounts ordered by id (code point order, whatever the database's collation)."""
        query = select(Account)
        if not include_system:
            query = query.where(Account.is_system.is_(False))
        views = self._run(lambda s: account_views(s, list(s.scalars(query))))
        return sorted(views, key=lambda view: view.account_id)

    def freeze(self, account_id: str) -> AccountView:
        return self._run(lambda s: _lifecycle.set_status(s, account_id, AccountStatus.FROZEN))

    def unfreeze(self, account_id: str) -> AccountView:
        return self._run(lambda s: _lifecycle.set_status(s, account_id, AccountStatus.ACTIVE))

    def close_account(self, account_id: str) -> AccountView:
        """Close the account; refused while its balance or held amount is not zero."""
        return self._run(lambda s: _lifecycle.set_status(s, account_id, AccountStatus.CLOSED))

    def status_changes(self) -> list[StatusChangeView]:
        """Every account status change the ledger recorded, by account and version."""
        return self._run(_status.status_changes)

    def place_hold(
        self, key: str, account_id: str, amount: Money, *, saga_id: str, payee: str | None = None
    ) -> HoldView:
        """Reserve `amount`; a known key returns its hold unchanged, even a voided tombstone.

        With `payee`, a new hold is refused unless that account exists and holds the same
        currency (its status is checked when it is paid: it can change in between).
        """
        return self._run(
            lambda s: _holds.place_hold(s, key, account_id, amount, saga_id=saga_id, payee=payee)
        )

    def void_hold(self, hold_key: str, *, saga_id: str) -> HoldView:
        """Release an active hold; leave a posted or voided one; tombstone a missing one."""
        return self._run(lambda s: _holds.void_hold(s, hold_key, saga_id=saga_id))

    def capture_hold(
        self, key: str, hold_key: str, to_account_id: str, *, saga_id: str
    ) -> EntryView:
        """Post an active hold to `to_account_id` as a 'capture' entry, exactly once."""
        return self._run(
            lambda s: _holds.capture_hold(s, key, hold_key, to_account_id, saga_id=saga_id)
        )

    def transfer(
        self,
        key: str,
        from_account_id: str,
        to_account_id: str,
        amount: Money,
        *,
        saga_id: str,
        pending: bool = False,
    ) -> EntryView:
        """Move `amount` as a 'transfer' entry; a known key returns its entry.

        With `pending`, the credit lands pending: in the same transaction a hold of `amount`
        under `pending_hold_key(key)` is placed on the destination, so the money counts in its
        balance but not in what it can spend. `void_hold` of that key makes it available;
        `reverse(..., consume_hold=that key)` takes it back whatever the payee spent since.
        """
        if pending:
            return self._run(
                lambda s: _transfer.transfer_pending(
                    s, key, from_account_id, to_account_id, amount, saga_id=saga_id
                )
            )
        return self._run(
            lambda s: _transfer.transfer(
                s, key, from_account_id, to_account_id, amount, saga_id=saga_id
            )
        )

    def post(
        self,
        key: str,
        legs: Sequence[Leg],
        *,
        kind: str,
        saga_id: str,
        consume_hold: str | None = None,
    ) -> EntryView:
        """Write balanced `legs` as one entry of a declared kind; a known key returns its entry.

        Each leg names a different account; per currency the legs sum to zero. With
        `consume_hold`, that active hold of the saga on a debited account, for at most the
        debit, is posted with the entry and pays that much of it.
        """
        return self._run(
            lambda s: _posting.post(
                s, key, legs, kind=kind, saga_id=saga_id, consume_hold=consume_hold
            )
        )

    def sweep(
        self,
        key: str,
        from_account_id: str,
        to_account_id: str,
        *,
        keep: Money,
        kind: str,
        saga_id: str,
    ) -> EntryView | None:
        """Move what `from_account_id` has available above `keep` as one entry of a declared
        kind; None, writing nothing, when that is zero or less. A known key returns its entry.

        Available is balance - held: held money (pending credits included) and the overdraft
        are never swept. The amount is computed on the locked row in the posting's transaction.
        """
        return self._run(
            lambda s: _sweep.sweep(
                s, key, from_account_id, to_account_id, keep, kind=kind, saga_id=saga_id
            )
        )

    def reverse(
        self, key: str, original_key: str, *, saga_id: str, consume_hold: str | None = None
    ) -> EntryView | None:
        """Negate the entry under `original_key`; None when there was nothing to reverse.

        With `consume_hold` (the pending hold of a credit), that hold of the saga, while still
        active, is posted with the reversal before its funds check: taking back a pending
        credit always succeeds, whatever else the payee spent.
        """
        return self._run(
            lambda s: _reversal.reverse(
                s, key, original_key, saga_id=saga_id, consume_hold=consume_hold
            )
        )

    def settle(self, key: str, clearing_account_id: str, *, saga_id: str) -> EntryView:
        """Certify that the saga's clearing leg nets to zero, as a 'settlement' entry."""
        return self._run(lambda s: _transfer.settle(s, key, clearing_account_id, saga_id=saga_id))

    def entry(self, key: str) -> EntryView | None:
        return self._run(lambda s: _optional(entry_view, _journal.find_entry(s, key)))

    def entries(
        self, *, saga_id: str | None = None, action_of: tuple[str, str] | None = None
    ) -> list[EntryView]:
        """Every entry, or a saga's; `action_of` (saga type, step) keeps the entries that step's
        action posted in sagas of that type."""
        query = select(JournalEntry).order_by(JournalEntry.entry_id)
        if saga_id is not None:
            query = query.where(JournalEntry.saga_id == saga_id)
        if action_of is not None:
            saga_type, step = (_like_literal(part) for part in action_of)
            query = query.where(
                JournalEntry.saga_id.like(f"{saga_type}-%", escape="\\"),
                JournalEntry.idempotency_key.like(f"%:{step}:action", escape="\\"),
            )
        return self._run(lambda s: [entry_view(row) for row in s.scalars(query)])

    def entry_proofs(self, saga_id: str) -> list[EntryProof]:
        """The saga's entries as their writers hashed and signed them, with their seals."""
        return self._run(lambda s: _proofs.entry_proofs(s, saga_id))

    def entry_key_ids(self) -> list[str]:
        """Every key id that signed a journal entry, sorted."""
        return self._run(_proofs.entry_key_ids)

    def holds(self, *, saga_id: str | None = None) -> list[HoldView]:
        query = select(Hold).order_by(Hold.hold_id)
        if saga_id is not None:
            query = query.where(Hold.saga_id == saga_id)
        return self._run(lambda s: [hold_view(row) for row in s.scalars(query)])

    def net_effect(self, saga_id: str) -> dict[str, Money]:
        """Per account, the non-zero sum of the saga's postings."""
        return self._run(lambda s: _invariants.net_effect(s, saga_id))

    def record_snapshot(self, snapshot: Snapshot) -> None:
        """Store the snapshot; for a known (saga, step) only `attempt` rises to the max seen."""
        self._run(lambda s: _snapshots.record_snapshot(s, snapshot))

    def begin_step(self, claim: RunClaim, snapshot: Snapshot | None) -> None:
        """Claim the saga id for the run chain and record `snapshot`, in one transaction.

        Raises SagaIdReusedError, writing nothing, when another run chain holds the claim.
        """
        if snapshot is None and self._claims.get(claim.saga_id) == claim.run_chain:
            return
        self._run(lambda s: self._begin(s, claim, snapshot))
        self._remember(claim)

    @contextmanager
    def begin_step_in_effect(self, claim: RunClaim, snapshot: Snapshot | None) -> Iterator[None]:
        """Claim and record inside the first transaction the block runs, before its writes.

        They commit with the step's effect, one transaction instead of two; when no transaction
        commits in the block (the effect was refused, failed or wrote nothing), they are
        recorded on their own as the block ends, so a failed step still has its snapshot.
        """
        pending = _PendingStep(claim, snapshot)
        token = _pending_step.set(pending)
        try:
            yield
        finally:
            _pending_step.reset(token)
            if not pending.settled:
                self.begin_step(claim, snapshot)

    def claims_between(
        self, since: datetime, until: datetime, *, limit: int = 1000
    ) -> list[RunClaim]:
        """The sagas that claimed their id in [since, until), newest first, at most `limit`."""
        return self._run(lambda s: _claims.claims_between(s, since, until, limit))

    def claim_of(self, saga_id: str) -> str | None:
        """The run chain that holds the saga id (the launch fence), if any."""
        return self._run(lambda s: _claims.claim_of(s, saga_id))

    def _begin(self, session: Session, claim: RunClaim, snapshot: Snapshot | None) -> None:
        if self._claims.get(claim.saga_id) != claim.run_chain:
            _claims.claim(session, claim)
        if snapshot is not None:
            _snapshots.record_snapshot(session, snapshot)

    def _remember(self, claim: RunClaim) -> None:
        if len(self._claims) >= _REMEMBERED_CLAIMS:
            self._claims.clear()
        self._claims[claim.saga_id] = claim.run_chain

    def snapshots(self, saga_id: str) -> list[Snapshot]:
        """The saga's snapshots ordered by step index."""
        return self._run(lambda s: _snapshots.snapshots(s, saga_id))

    def seal(self, *, batch: int = 5000) -> ChainHead:
        """Seal every entry committed so far into the journal chain, `batch` per transaction;
        the chain's head after. Writers never wait on it; another sealer does."""
        while self._run(lambda s: _sealer.seal(s, batch)) == batch:
            pass
        return self.chain_head()

    def unsealed_entries(self) -> int:
        """How many written entries the sealer has not reached yet."""
        return self._run(_sealer.unsealed_count)

    def chain_head(self) -> ChainHead:
        """The sealed journal chain's last link: what an anchor of the ledger names."""
        sequence, digest = self._run(_chain.read_head)
        return ChainHead(sequence, digest)

    def entry_hash_at(self, sequence: int) -> str | None:
        """The stored hash of the sealed chain's link at `sequence`, if there is one."""
        return self._run(lambda s: _chain.stored_hash_at(s, sequence))

    def signature_findings(self, problem: SignatureProblem) -> list[str]:
        """Each entry, hold and account status change whose signature `problem` (the
        verifier's keyring) rejects, and each account whose status is not its latest change."""
        return self._run(
            lambda s: [
                *_signing.signature_findings(s, problem),
                *_status.status_findings(s, problem),
            ]
        )

    def check_invariants(self) -> list[str]:
        """Findings about inconsistent balances, holds, limits or entries; empty when sound.

        Every query of the check reads one snapshot, so that sagas writing meanwhile never
        show as a broken ledger: SQLite's transactions are serialised already (BEGIN
        IMMEDIATE); on PostgreSQL the check runs at REPEATABLE READ."""

        def in_one_snapshot(session: Session) -> list[str]:
            if session.get_bind().dialect.name == "postgresql":
                session.connection(execution_options={"isolation_level": "REPEATABLE READ"})
            return _invariants.check_invariants(session)

        return self._run(in_one_snapshot)

    def _run(self, work: Callable[[Session], T]) -> T:
        try:
            return self._once(work)
        except IntegrityError:  # a concurrent call inserted the same key first: rerun finds it
            self._known_system.clear()  # or a system account's row was rolled back after all
            return self._once(work)

    def _once(self, work: Callable[[Session], T]) -> T:
        pending = _pending_step.get()
        if pending is not None and pending.settled:
            pending = None
        info = {
            SIGNER_INFO: self._signer,
            DECLARED_INFO: self._declared,
            HOST_CLOCK_INFO: self._clock,
            KNOWN_SYSTEM_INFO: self._known_system,
        }
        with (
            translate_db_errors(),
            Session(self.engine, expire_on_commit=False, info=info) as session,
        ):
            with session.begin():
                if pending is not None:
                    self._begin_pending(session, pending)
                result = work(session)
            if pending is not None:
                pending.settled = True
                self._remember(pending.claim)
            _receipts.note_returned(result)  # ledger receipts (_receipts.py): committed entries
            return result

    def _begin_pending(self, session: Session, pending: _PendingStep) -> None:
        try:
            self._begin(session, pending.claim, pending.snapshot)
        except SagaIdReusedError:
            pending.settled = True
            raise


def _optional(view: Callable[[R], T], row: R | None) -> T | None:
    return None if row is None else view(row)


def _like_literal(text: str) -> str:
    """`text` matched as itself in a LIKE pattern escaped with a backslash."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
