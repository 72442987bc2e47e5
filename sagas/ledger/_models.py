"""The ledger's tables: account, journal_entry, posting, hold, saga_snapshot and
operator_token_use."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    BigInteger,
    CheckConstraint,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    String,
    Text,
    false,
    func,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

from sagas.foundations import KEY_LENGTH, NAMING_CONVENTION, UtcDateTime

ID = BigInteger().with_variant(Integer(), "sqlite")
HASH_LENGTH = 64
"""SHA-256 in hex."""
KEY_ID_LENGTH = 16
SIGNATURE_LENGTH = 88
"""An Ed25519 signature in base64."""


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UtcDateTime()}


class Account(Base):
    __tablename__ = "account"
    __table_args__ = (
        CheckConstraint("status IN ('active', 'frozen', 'closed')", name="status"),
        CheckConstraint("held >= 0", name="held_not_negative"),
        CheckConstraint("overdraft >= 0", name="overdraft_not_negative"),
        CheckConstraint("is_system OR balance - held + overdraft >= 0", name="available"),
        CheckConstraint(
            "NOT is_system OR (balance = 0 AND held = 0 AND overdraft = 0)", name="system_derived"
        ),
        CheckConstraint("is_system = (account_id LIKE '@%')", name="system_prefix"),
    )

    account_id: Mapped[str] = mapped_column(String(64), primary_key=True)
    currency: Mapped[str] = mapped_column(String(3))
    status: Mapped[str] = mapped_column(String(16))
    is_system: Mapped[bool]
    balance: Mapped[int] = mapped_column(BigInteger)
    held: Mapped[int] = mapped_column(BigInteger)
    overdraft: Mapped[int] = mapped_column(BigInteger)
    created_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    status_version: Mapped[int] = mapped_column(Integer, default=0)
    """How many status changes the account has had: the version of its latest."""


class AccountStatusChange(Base):
    """One change of an account's status, signed by its writer: append-only, and what the
    account's status must match (its latest version)."""

    __tablename__ = "account_status_change"
    __table_args__ = (CheckConstraint("status IN ('active', 'frozen', 'closed')", name="status"),)

    account_id: Mapped[str] = mapped_column(ForeignKey("account.account_id"), primary_key=True)
    version: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    status: Mapped[str] = mapped_column(String(16))
    changed_at: Mapped[datetime]
    key_id: Mapped[str | None] = mapped_column(String(KEY_ID_LENGTH))
    signature: Mapped[str | None] = mapped_column(String(SIGNATURE_LENGTH))


class JournalEntry(Base):
    __tablename__ = "journal_entry"
    __table_args__ = (
        # Built-in kinds and those saga types declare: any short lowercase word.
        CheckConstraint(
            "length(kind) BETWEEN 1 AND 16"
            " AND ltrim(kind, 'abcdefghijklmnopqrstuvwxyz0123456789_-') = ''",
            name="kind",
        ),
        CheckConstraint(
            "(kind = 'reversal') = (reverses_entry_id IS NOT NULL)", name="reversal_link"
        ),
        Index("ix_journal_entry_sequence", "sequence", unique=True),
    )

    entry_id: Mapped[int] = mapped_column(ID, primary_key=True, autoincrement=True)
    idempotency_key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True)
    saga_id: Mapped[str | None] = mapped_column(String(KEY_LENGTH), index=True)
    kind: Mapped[str] = mapped_column(String(16))
    reverses_entry_id: Mapped[int | None] = mapped_column(
        ID, ForeignKey("journal_entry.entry_id"), unique=True
    )
    created_at: Mapped[datetime]
    sequence: Mapped[int | None] = mapped_column(BigInteger)
    """Entries written before the journal was sealed (revision 0011) only: their place in the
    one chain every append locked. Newer entries take their place from the sealer
    (journal_seal)."""
    prev_hash: Mapped[str | None] = mapped_column(String(HASH_LENGTH))
    entry_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    """SHA-256 over the entry's content and postings (and, before revision 0011, its place)."""
    key_id: Mapped[str | None] = mapped_column(String(KEY_ID_LENGTH))
    signature: Mapped[str | None] = mapped_column(String(SIGNATURE_LENGTH))
    """The writer's Ed25519 signature over entry_hash, base64."""

    postings: Mapped[list[Posting]] = relationship(order_by="Posting.posting_id", lazy="selectin")
    seal: Mapped[JournalSeal | None] = relationship(lazy="joined", viewonly=True)


class Posting(Base):
    __tablename__ = "posting"
    __table_args__ = (
        CheckConstraint("amount <> 0", name="amount_not_zero"),
        Index("ix_posting_account_id_posting_id", "account_id", "posting_id"),
    )

    posting_id: Mapped[int] = mapped_column(ID, primary_key=True, autoincrement=True)
    entry_id: Mapped[int] = mapped_column(ID, ForeignKey("journal_entry.entry_id"), index=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("account.account_id"))
    currency: Mapped[str] = mapped_column(String(3))
    amount: Mapped[int] = mapped_column(BigInteger)
    balance_after: Mapped[int | None] = mapped_column(BigInteger)
    """The customer account's balance once this posting applied: what its next posting starts
    from. None on a system account, whose postings are deltas no writer serialises."""


class JournalSeal(Base):
    """An entry's place in the sealed chain: gapless from 1, each linked to the one before.

    Writers never touch it: the sealer appends the entries committed since it last ran."""

    __tablename__ = "journal_seal"

    sequence: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    entry_id: Mapped[int] = mapped_column(ID, ForeignKey("journal_entry.entry_id"), unique=True)
    prev_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    chain_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    """SHA-256 over sequence, prev_hash and the entry's entry_hash (for an entry chained before
    revision 0011: its own entry_hash, which covered its place already)."""


class JournalHead(Base):
    """The sealed chain's last sequence number and hash: only the sealer locks it."""

    __tablename__ = "journal_head"
    __table_args__ = (CheckConstraint("head_id = 1", name="single_row"),)

    head_id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=False)
    sequence: Mapped[int] = mapped_column(BigInteger)
    entry_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))


class Hold(Base):
    __tablename__ = "hold"
    __table_args__ = (
        CheckConstraint("status IN ('active', 'posted', 'voided')", name="status"),
        CheckConstraint(
            "(account_id IS NOT NULL AND currency IS NOT NULL AND amount > 0)"
            " OR (account_id IS NULL AND currency IS NULL AND amount = 0 AND status = 'voided')",
            name="tombstone",
        ),
    )

    hold_id: Mapped[int] = mapped_column(ID, primary_key=True, autoincrement=True)
    hold_key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True)
    account_id: Mapped[str | None] = mapped_column(ForeignKey("account.account_id"), index=True)
    currency: Mapped[str | None] = mapped_column(String(3))
    amount: Mapped[int] = mapped_column(BigInteger)
    status: Mapped[str] = mapped_column(String(16))
    saga_id: Mapped[str] = mapped_column(String(KEY_LENGTH), index=True)
    created_at: Mapped[datetime]
    closed_at: Mapped[datetime | None]
    key_id: Mapped[str | None] = mapped_column(String(KEY_ID_LENGTH))
    signature: Mapped[str | None] = mapped_column(String(SIGNATURE_LENGTH))
    """The writer's signature over the hold as it stands: re-signed when it closes."""


class SagaSnapshot(Base):
    __tablename__ = "saga_snapshot"

    saga_id: Mapped[str] = mapped_column(String(KEY_LENGTH), primary_key=True)
    step_index: Mapped[int] = mapped_column(Integer, primary_key=True)
    saga_type: Mapped[str] = mapped_column(String(KEY_LENGTH))
    step_name: Mapped[str] = mapped_column(String(KEY_LENGTH))
    status: Mapped[str] = mapped_column(String(32))
    data: Mapped[str] = mapped_column(Text)
    compensation_stack: Mapped[str] = mapped_column(Text)
    attempt: Mapped[int] = mapped_column(Integer)
    recorded_at: Mapped[datetime]
    forward_only: Mapped[bool] = mapped_column(server_default=false())
    inquiries: Mapped[str] = mapped_column(Text, server_default="[]")
    retry_specs: Mapped[str | None] = mapped_column(Text)
    """JSON, on a saga's first snapshot: the retry specs it runs with."""


class SagaClaim(Base):
    """The launch fence: the run chain (first execution run id) that may take effects."""

    __tablename__ = "saga_claim"

    saga_id: Mapped[str] = mapped_column(String(KEY_LENGTH), primary_key=True)
    run_chain: Mapped[str] = mapped_column(String(KEY_LENGTH))
    saga_type: Mapped[str] = mapped_column(String(KEY_LENGTH))
    claimed_at: Mapped[datetime]


class OperatorTokenUse(Base):
    """An operator token spent on an action: its (issuer, jti) is taken once, deployment-wide.
    Append-only (triggers, and the worker role may only insert and read)."""

    __tablename__ = "operator_token_use"

    issuer: Mapped[str] = mapped_column(String(KEY_LENGTH), primary_key=True)
    token_id: Mapped[str] = mapped_column(String(200), primary_key=True)
    subject: Mapped[str] = mapped_column(String(KEY_LENGTH))
    workflow_id: Mapped[str] = mapped_column(String(1000))
    action: Mapped[str] = mapped_column(String(64))
    used_by: Mapped[str] = mapped_column(String(1000))
    """The workflow run and activity that spent it: a retry of that activity is the same use."""
    used_at: Mapped[datetime] = mapped_column(server_default=func.current_timestamp())


metadata = Base.metadata
