"""A statement from a rail, as read from its file: what every format's reader returns."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime
from enum import StrEnum

from sagas.foundations import Money


class StatementFormat(StrEnum):
    """The formats `fundsaga reconcile import` reads."""

    CAMT052 = "camt.052"  # ISO 20022 intraday account report (BkToCstmrAcctRpt)
    CAMT053 = "camt.053"  # ISO 20022 end-of-day statement (BkToCstmrStmt)
    CAMT054 = "camt.054"  # ISO 20022 debit/credit notification, intraday (BkToCstmrDbtCdtNtfctn)
    MT940 = "mt940"  # SWIFT customer statement
    CSV = "csv"  # one line a row, with a declared column mapping


class LineDirection(StrEnum):
    """Seen from the statement's account: money out of it or into it."""

    DEBIT = "debit"  # out: a payout paid, a fee charged
    CREDIT = "credit"  # in: a return, a collection


class LineKind(StrEnum):
    """What the rail says the line is."""

    PAYOUT = "payout"  # money sent to a beneficiary
    RETURN = "return"  # a payout sent back by the beneficiary's bank
    FEE = "fee"  # a charge on its own line
    INTEREST = "interest"  # interest paid or charged on the account
    OTHER = "other"  # anything else the rail booked


@dataclass(frozen=True, kw_only=True)
class LineTransaction:
    """One transaction of a booked entry (camt TxDtls): a batch books several in one entry."""

    end_to_end_id: str | None
    """Our reference, as we sent it; of a return, the returned payout's."""
    amount: Money | None
    """Its own amount, None when the rail states none (camt before 001.03)."""
    return_reason: str | None = None
    """Of a returned transaction, the rail's reason code (camt RtrInf/Rsn/Cd, MT940 /RTRN/)."""


@dataclass(frozen=True, kw_only=True)
class StatementLine:
    """One booked entry of a statement."""

    bank_reference: str | None
    """The rail's own id for the entry (camt AcctSvcrRef or NtryRef, MT940 bank reference, a
    CSV's reference column); None when the file gives none: nothing is made up in its place."""
    end_to_end_id: str | None
    """Our reference, as we sent it (camt EndToEndId, MT940 customer reference)."""
    direction: LineDirection
    amount: Money
    """Positive; `direction` says which way."""
    booking_date: date
    value_date: date
    kind: LineKind
    fee: Money | None = None
    """Charges the rail took for this entry (camt Chrgs), None when it states none."""
    description: str = ""
    transactions: tuple[LineTransaction, ...] = ()
    """The entry's transactions as the rail details them; none when it details none."""

    @property
    def is_batch(self) -> bool:
        """Several transactions in one booking: each is matched on its own."""
        return len(self.transactions) > 1


@dataclass(frozen=True, kw_only=True)
class Balance:
    """A booked balance of the statement's account: signed, a debit balance (an overdraft)
    below zero."""

    amount: Money
    day: date
    field: str
    """Where the file states it (`Stmt/Bal[1]`, `:60F:`), for the messages that name it."""


@dataclass(frozen=True, kw_only=True)
class Statement:
    """A statement file as read: its identity, the account it covers and its booked lines."""

    format: StatementFormat
    statement_id: str
    """The rail's id of the statement (camt Stmt/Id, MT940 :20:)."""
    account: str
    """The account at the rail the statement covers (an IBAN or the provider's id)."""
    currency: str
    period_start: datetime | None
    period_end: datetime | None
    """Up to when the rail says the statement is complete: movements before it that it lacks
    are missing (after the grace period)."""
    lines: tuple[StatementLine, ...]
    copy_indicator: str | None = None
    """camt CpyDplctInd: CODU (a copy), DUPL (a duplicate), CORR (a correction); None for an
    original. Stated in the import's report; lines are judged by their identity whatever it
    says (docs/reconciliation.md, "Every line accounted for")."""
    opening: Balance | None = None
    """The booked balance before the lines (camt OPBD or PRCD, MT940 :60F: or :60M:)."""
    closing: Balance | None = None
    """The booked balance after them (camt CLBD, MT940 :62F: or :62M:): opening + lines."""
