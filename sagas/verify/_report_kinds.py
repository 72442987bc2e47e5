"""Which report a signed document is: its `format` member, inside what the signature covers, so
a compensation audit cannot pass as a reconciliation pack, nor the other way round."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from sagas.verify.evidence import EVIDENCE_FORMAT
from sagas.verify.reconciliation import RECONCILIATION_FORMAT


class ReportKind(StrEnum):
    """The reports fundsaga signs, by the command that writes them."""

    COMPENSATIONS = "compensations"  # `audit compensations`: every saga that did not complete
    RECONCILIATION = "reconciliation"  # `reconcile report`: statements, breaks, proof of cash

    @property
    def what(self) -> str:
        """How a message names the report."""
        return _TITLES[self]


_TITLES = {
    ReportKind.COMPENSATIONS: "compensation audit",
    ReportKind.RECONCILIATION: "reconciliation pack",
}
_FORMATS = {
    EVIDENCE_FORMAT: ReportKind.COMPENSATIONS,
    RECONCILIATION_FORMAT: ReportKind.RECONCILIATION,
}


def kind_of(document: Mapping[str, Any]) -> ReportKind | None:
    """The kind its `format` names; a document without one is a compensation audit (written
    before packs named their format); None for a format fundsaga never writes."""
    named = document.get("format", EVIDENCE_FORMAT)
    return _FORMATS.get(named) if isinstance(named, str) else None
