"""The reconciliation's tables: statement files, their statements and lines (append-only), the
matches found (append-only) and the breaks (each change of status also an audit record)."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Date,
    ForeignKey,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from sagas.foundations import NAMING_CONVENTION, UtcDateTime

ID = BigInteger().with_variant(Integer(), "sqlite")
REFERENCE_LENGTH = 250
"""An end-to-end id: a saga's action key (saga id, step, phase) fits."""
IDENTITY_COLUMN_LENGTH = 80
"""A line's identity: a SHA-256 in hex, or `legacy:` and the bank reference of a line kept
before identities (migration 2026_11_28_0016)."""
REASON_LENGTH = 35
"""A return reason: ISO 20022's code is 4 characters, a proprietary one up to 35."""
ACTION_ID_LENGTH = 120
"""The workflow id of the operator action that wrote a row, as its audit record names it."""


def action_column() -> Mapped[str | None]:
    """The operator action that wrote the row; `ledger verify` finds its audit record."""
    return mapped_column(String(ACTION_ID_LENGTH))


class Base(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UtcDateTime(), date: Date()}


class StatementFile(Base):
    """A statement file as imported: its bytes, kept with their SHA-256. Its statements are
    `BankStatementRow`s; the header columns here (statement id to closing balance) repeat its
    first statement's, for readers of files imported before a file could hold several."""

    __tablename__ = "statement_file"

    file_id: Mapped[int] = mapped_column(ID, primary_key=True, autoincrement=True)
    sha256: Mapped[str] = mapped_column(String(64), unique=True)
    format: Mapped[str] = mapped_column(String(16))
    name: Mapped[str] = mapped_column(String(255))
    statement_id: Mapped[str] = mapped_column(String(64))
    account: Mapped[str] = mapped_column(String(64))
    currency: Mapped[str] = mapped_column(String(3))
    period_start: Mapped[datetime | None]
    period_end: Mapped[datetime | None]
    line_count: Mapped[int] = mapped_column(Integer)
    opening_minor: Mapped[int | None] = mapped_column(BigInteger)
    """The opening booked balance, signed (below zero a debit balance); None if none stated."""
    opening_date: Mapped[date | None]
    closing_minor: Mapped[int | None] = mapped_column(BigInteger)
    closing_date: Mapped[date | None]
    content: Mapped[bytes] = mapped_column(LargeBinary)
    imported_at: Mapped[datetime]
    imported_by: Mapped[str] = mapped_column(String(120))
    action_id: Mapped[str | None] = action_column()


class BankStatementRow(Base):
    """One statement of a statement file (a camt `Stmt`, `Rpt` or `Ntfctn`, an MT940 :20:
    block): its header and balances, what its balances are checked, chained and proven by."""

    __tablename__ = "bank_statement"
    __table_args__ = (UniqueConstraint("file_id", "position"),)

    bank_statement_id: Mapped[int] = mapped_column(ID, primary_key=True, autoincrement=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("statement_file.file_id"))
    position: Mapped[int] = mapped_column(Integer)
    """0 for the file's first statement, as a line's position in its statement."""
    statement_id: Mapped[str] = mapped_column(String(64))
    """The rail's id of the statement (camt Stmt/Id, MT940 :20: with :28C:)."""
    account: Mapped[str] = mapped_column(String(64))
    currency: Mapped[str] = mapped_column(String(3))
    period_start: Mapped[datetime | None]
    period_end: Mapped[datetime | None]
    copy_indicator: Mapped[str | None] = mapped_column(String(4))
    """camt CpyDplctInd (CODU, DUPL, CORR); None for an original, and for statements kept
    before this column (migration 2026_11_28_0019)."""
    opening_minor: Mapped[int | None] = mapped_column(BigInteger)
    """The opening booked balance, signed (below zero a debit balance); None if none stated."""
    opening_date: Mapped[date | None]
    closing_minor: Mapped[int | None] = mapped_column(BigInteger)
    closing_date: Mapped[date | None]
    line_count: Mapped[int] = mapped_column(Integer)
    """The lines the statement holds, whatever became of each (new, known or refused)."""
    action_id: Mapped[str | None] = action_column()


class StatementLineRow(Base):
    """One booked line, kept once per account and identity (`_line_identity`): a line the rail
    delivers again, the same booking, is known, never kept twice."""

    __tablename__ = "statement_line"
    __table_args__ = (
        UniqueConstraint("account", "identity"),
        CheckConstraint("direction IN ('debit', 'credit')", name="direction"),
        CheckConstraint("amount_minor >= 0", name="amount_not_negative"),
        CheckConstraint("zero_amount = (amount_minor = 0)", name="zero_amount_marked"),
    )

    line_id: Mapped[int] = mapped_column(ID, primary_key=True, autoincrement=True)
    file_id: Mapped[int] = mapped_column(ForeignKey("statement_file.file_id"))
    bank_statement_id: Mapped[int] = mapped_column(
        ForeignKey("bank_statement.bank_statement_id"), index=True
    )
    """The statement that first delivered the line, in `file_id`."""
    position: Mapped[int] = mapped_column(Integer)
    """0 for its statement's first line."""
    account: Mapped[str] = mapped_column(String(64))
    bank_reference: Mapped[str | None] = mapped_column(String(64))
    """As the file gives it; None when it gives none."""
    identity: Mapped[str] = mapped_column(String(IDENTITY_COLUMN_LENGTH))
    occurrence: Mapped[int] = mapped_column(Integer)
    zero_amount: Mapped[bool] = mapped_column(Boolean)
    """A line of 0.00: kept and counted, never matched (it moves no money)."""
    end_to_end_id: Mapped[str | None] = mapped_column(String(REFERENCE_LENGTH), index=True)
    direction: Mapped[str] = mapped_column(String(8))
    kind: Mapped[str] = mapped_column(String(16))
    amount_minor: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(3))
    fee_minor: Mapped[int | None] = mapped_column(BigInteger)
    booking_date: Mapped[date]
    value_date: Mapped[date]
    description: Mapped[str] = mapped_column(Text)
    action_id: Mapped[str | None] = action_column()


class StatementTransactionRow(Base):
    """One transaction of a stored line (camt TxDtls, an MT940 return): a batch booking holds
    several, each matched on its own."""

    __tablename__ = "statement_transaction"
    __table_args__ = (UniqueConstraint("line_id", "position"),)

    transaction_id: Mapped[int] = mapped_column(ID, primary_key=True, autoincrement=True)
    line_id: Mapped[int] = mapped_column(ForeignKey("statement_line.line_id"))
    position: Mapped[int] = mapped_column(Integer)
    end_to_end_id: Mapped[str | None] = mapped_column(String(REFERENCE_LENGTH), index=True)
    amount_minor: Mapped[int | None] = mapped_column(BigInteger)
    return_reason: Mapped[str | None] = mapped_column(String(REASON_LENGTH))
    action_id: Mapped[str | None] = action_column()


class RailTransactionMatch(Base):
    """A transaction of a batch line and the journal entry it books, each matched at most once."""

    __tablename__ = "rail_transaction_match"

    transaction_id: Mapped[int] = mapped_column(
        ForeignKey("statement_transaction.transaction_id"), primary_key=True
    )
    entry_id: Mapped[int] = mapped_column(ID, unique=True)
    method: Mapped[str] = mapped_column(String(16))
    matched_at: Mapped[datetime]
    action_id: Mapped[str | None] = action_column()


class RailMatch(Base):
    """A statement line and the journal entry it books, each matched at most once."""

    __tablename__ = "rail_match"

    line_id: Mapped[int] = mapped_column(ForeignKey("statement_line.line_id"), primary_key=True)
    entry_id: Mapped[int] = mapped_column(ID, unique=True)
    method: Mapped[str] = mapped_column(String(16))
    matched_at: Mapped[datetime]
    action_id: Mapped[str | None] = action_column()


class BreakRow(Base):
    """A difference between a statement and the ledger, and where it stands."""

    __tablename__ = "reconciliation_break"
    __table_args__ = (
        CheckConstraint("status IN ('open', 'explained', 'resolved', 'matched')", name="status"),
    )

    break_id: Mapped[int] = mapped_column(ID, primary_key=True, autoincrement=True)
    break_key: Mapped[str] = mapped_column(String(80), unique=True)
    """kind:line:entry, so that matching again opens no second break for one difference."""
    kind: Mapped[str] = mapped_column(String(24))
    status: Mapped[str] = mapped_column(String(16))
    line_id: Mapped[int | None] = mapped_column(ForeignKey("statement_line.line_id"))
    entry_id: Mapped[int | None] = mapped_column(ID)
    reference: Mapped[str | None] = mapped_column(String(REFERENCE_LENGTH))
    currency: Mapped[str] = mapped_column(String(3))
    ledger_minor: Mapped[int | None] = mapped_column(BigInteger)
    statement_minor: Mapped[int | None] = mapped_column(BigInteger)
    detail: Mapped[str] = mapped_column(Text)
    opened_at: Mapped[datetime]
    updated_at: Mapped[datetime]
    note: Mapped[str] = mapped_column(Text, default="")
    evidence: Mapped[str] = mapped_column(Text, default="")
    explained_by: Mapped[str | None] = mapped_column(String(120))
    resolved_by: Mapped[str | None] = mapped_column(String(250))
    adjustment_entry_id: Mapped[int | None] = mapped_column(ID)
    version: Mapped[int] = mapped_column(Integer, default=1)
    action_id: Mapped[str | None] = action_column()
    """The run that opened the break."""
    closed_by_action: Mapped[str | None] = action_column()
    """The run that found the break's line or movement matched since."""


metadata = Base.metadata
