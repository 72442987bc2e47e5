"""What a line's :86: states that its :61: cannot hold: the end-to-end id (the :61: customer
reference holds 16 characters, ours 35), the remittance text and a return's reason, read from
the structured subfields Dutch and German banks write (`_mt940_structured`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import mt940

from sagas.reconcile.formats._mt940_structured import structured_details

RAW_DETAILS: dict[str, list[Any]] = {"post_transaction_details": []}
"""Processors for `mt940.parse_statements` that keep :86: as the bank wrote it: the library's
own reading of German subfields drops `transaction_details` and replaces the :61: customer
reference with `KREF+` (None without one)."""
OPTIONS = mt940.Options(unbounded_details=True)
"""Without it the library cuts :86: after 585 characters, without a word."""

_MARKERS = frozenset({"NONREF", "NOTPROVIDED", "EREF", "PREF", "MARF", "KREF", "IREF"})
"""What banks write as the :61: customer reference when the reference, if any, is in :86:
(Rabobank's `EREF`, `PREF`, `MARF`): never a reference itself."""
_PREFIXES = ("KREF+", "EREF+")


@dataclass(frozen=True, kw_only=True)
class LineDetails:
    """What a :61: line and its :86: state beyond the amount, date and mark."""

    end_to_end_id: str | None
    """/EREF/ or EREF+ of :86:, else the :61: customer reference unless it is a marker."""
    return_reason: str | None
    """/RTRN/ (an ISO 20022 code such as AC04) or the German ?34 key, as stated."""
    states_return: bool
    """The :86: says the line is a return (/RTRN/), whatever its type code."""
    description: str
    """The remittance text and counterparty of a structured :86:, else :86: as written; then
    the :61: supplementary details."""


def line_details(transaction: Mapping[str, Any]) -> LineDetails:
    """The details of one transaction as `mt940.parse_statements` reads it with `RAW_DETAILS`
    and `OPTIONS`."""
    details = str(transaction.get("transaction_details") or "")
    extra = str(transaction.get("extra_details") or "")
    found = structured_details(details)
    customer = _customer_reference(str(transaction.get("customer_reference") or ""))
    if found is None:
        return LineDetails(
            end_to_end_id=customer,
            return_reason=None,
            states_return=False,
            description=_joined(details, extra),
        )
    counterparty = f"({found.counterparty})" if found.counterparty else ""
    readable = _joined(found.remittance or "", counterparty)
    return LineDetails(
        end_to_end_id=found.end_to_end_id or customer,
        return_reason=found.return_reason,
        states_return=found.states_return,
        description=_joined(readable or details, extra),
    )


def end_to_end_id(details: str) -> str | None:
    """The end-to-end id (/EREF/, EREF+) when the :86: states one; a code word without a value,
    NOTPROVIDED or NONREF is none."""
    found = structured_details(details)
    return None if found is None else found.end_to_end_id


def return_reason(details: str) -> str | None:
    """A return's reason: /RTRN/ (an ISO 20022 code, AC04) or the German ?34 key, as stated."""
    found = structured_details(details)
    return None if found is None else found.return_reason


def _customer_reference(reference: str) -> str | None:
    """The :61: customer reference as a reference: None for NONREF and for the markers that
    point to :86: (`EREF`), which are never a reference; `KREF+` before one is dropped."""
    text = reference.strip()
    for prefix in _PREFIXES:
        text = text.removeprefix(prefix)
    return None if not text or text.upper() in _MARKERS else text


def _joined(*parts: str) -> str:
    return " ".join(part.strip() for part in parts if part.strip())
