"""A line's kind as the rail codes it: ISO 20022 bank transaction codes (Domn/Fmly/SubFmly,
or a proprietary code) and SWIFT MT940 transaction type codes (NTRF, NCHG, NINT, NRTI); and
the names of the ISO 20022 return reason codes a break states."""

from __future__ import annotations

import re

from sagas.reconcile.formats._statement import LineDirection, LineKind

_RETURN_SUBFAMILIES = frozenset({"RRTN", "RPCR", "ARET", "AREV"})
_FEE_CODES = frozenset({"CHRG", "FEES", "COMM", "TAXE"})
_INTEREST_CODES = frozenset({"INTR", "ADJT"})
_PAYMENT_FAMILIES = frozenset({"ICDT", "IRCT"})
"""Issued credit transfers (and real-time ones): payouts; received ones are other."""
_MT940_CODE = re.compile(r"[NSF](?P<letters>[A-Z0-9]{3})")
_MT940_RETURNS = frozenset({"RTI", "RTR"})
_MT940_FEES = frozenset({"CHG", "COM", "FEE"})
_MT940_INTEREST = frozenset({"INT"})
_MT940_TRANSFERS = frozenset({"TRF", "CMI", "STO", "SAL"})

NEVER_BY_AMOUNT = frozenset({LineKind.FEE, LineKind.INTEREST})
"""A fee or interest is the rail's own booking: never a payout that happens to be as large."""

REASONS = {
    "AC01": "incorrect account number",
    "AC04": "closed account",
    "AC06": "blocked account",
    "AG01": "transaction forbidden",
    "AG02": "invalid bank operation code",
    "AM04": "insufficient funds",
    "AM05": "duplication",
    "BE05": "unrecognised initiating party",
    "DUPL": "duplicate payment",
    "FOCR": "following cancellation request",
    "MD07": "end customer deceased",
    "MS02": "not specified, by the customer",
    "MS03": "not specified, by the agent",
    "RC01": "bank identifier incorrect",
    "RR04": "regulatory reason",
}
"""What ISO 20022's external return reason codes mean (ExternalReturnReason1Code)."""


def reason_text(code: str | None) -> str:
    """`AC04 (closed account)`; an unknown code as it is; none as `no reason stated`."""
    if not code:
        return "no reason stated"
    meaning = REASONS.get(code.upper())
    return code if meaning is None else f"{code} ({meaning})"


def camt_kind(
    *,
    domain: str,
    family: str,
    subfamily: str,
    proprietary: str,
    returned: bool,
    direction: LineDirection,
) -> LineKind:
    """The kind a camt BkTxCd states; `returned`: the entry carries return information or
    is a reversal. A structured code wins over a proprietary one."""
    if returned or subfamily in _RETURN_SUBFAMILIES:
        return LineKind.RETURN
    if subfamily in _FEE_CODES or family in _FEE_CODES:
        return LineKind.FEE
    if subfamily in _INTEREST_CODES or family in _INTEREST_CODES:
        return LineKind.INTEREST
    if family in _PAYMENT_FAMILIES:
        return LineKind.PAYOUT
    if domain or family:
        return LineKind.OTHER
    # Banks that send only a proprietary code often use MT940's (NTRF, NCHG+123).
    return mt940_kind("", proprietary[:4], direction)


def mt940_kind(
    status: str, type_code: str, direction: LineDirection, *, returned: bool = False
) -> LineKind:
    """The kind of a :61: line from its debit/credit mark (RD, RC: a reversal) and its
    transaction type code (N, S or F and three characters: the letters say what it is);
    `returned`: its :86: says it is a return (/RTRN/), as Dutch banks do under their own
    numeric type codes (N541)."""
    found = _MT940_CODE.fullmatch(type_code.upper())
    letters = "" if found is None else found["letters"]
    if returned or status.upper().startswith("R") or letters in _MT940_RETURNS:
        return LineKind.RETURN
    if letters in _MT940_FEES:
        return LineKind.FEE
    if letters in _MT940_INTEREST:
        return LineKind.INTEREST
    if letters in _MT940_TRANSFERS and direction is LineDirection.DEBIT:
        return LineKind.PAYOUT
    return LineKind.OTHER


def kinds_agree(line: LineKind, movement: LineKind) -> bool:
    """Whether a line of kind `line` may book a movement of kind `movement`: the same kind, or
    a line whose rail states no kind; a fee or interest books only a fee or interest."""
    if line is LineKind.OTHER and movement not in NEVER_BY_AMOUNT:
        return True
    return line is movement
