"""The ledger's tables: account, journal_entry, posting, hold and saga_snapshot."""

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
    sequence: Mapped[int] = mapped_column(BigInteger)
    """Gapless position in the journal chain, from 1: a missing number is a deleted entry."""
    prev_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    entry_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    key_id: Mapped[str | None] = mapped_column(String(KEY_ID_LENGTH))
    signature: Mapped[str | None] = mapped_column(String(SIGNATURE_LENGTH))
    """The writer's Ed25519 signature over entry_hash, base64."""

    postings: Mapped[list[Posting]] = relationship(order_by="Posting.posting_id", lazy="selectin")


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
    balance_after: Mapped[int] = mapped_column(BigInteger)
    """The account's balance once this posting applied: what its next posting starts from."""


class JournalHead(Base):
    """The one row every new journal entry locks: the chain's last sequence number and hash."""

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


metadata = Base.metadata
