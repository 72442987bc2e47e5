"""The double-entry ledger: accounts, holds, immutable journal entries and saga snapshots."""

from sagas.ledger._accounts import clearing_account_id, funding_account_id
from sagas.ledger._ledger import Ledger
from sagas.ledger._models import metadata
from sagas.ledger._views import (
    AccountStatus,
    AccountView,
    EntryKind,
    EntryView,
    HoldStatus,
    HoldView,
    PostingView,
)

__all__ = [
    "AccountStatus",
    "AccountView",
    "EntryKind",
    "EntryView",
    "HoldStatus",
    "HoldView",
    "Ledger",
    "PostingView",
    "clearing_account_id",
    "funding_account_id",
    "metadata",
]
