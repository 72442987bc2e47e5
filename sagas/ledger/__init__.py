"""The double-entry ledger: accounts, holds, immutable journal entries and saga snapshots."""

from sagas.ledger._accounts import clearing_account_id, funding_account_id, system_account_id
from sagas.ledger._chain import (
    GENESIS_HASH,
    JOURNAL_CHAIN,
    ChainLink,
    content_hash,
    entry_hash,
    seal_hash,
)
from sagas.ledger._ledger import Ledger
from sagas.ledger._models import metadata
from sagas.ledger._pending import pending_hold_key
from sagas.ledger._posting import Leg
from sagas.ledger._proofs import EntryProof, proof_hash
from sagas.ledger._signing import RowSigner, SignatureProblem, entry_message
from sagas.ledger._token_uses import TokenSpend, spend_operator_token
from sagas.ledger._views import (
    AccountStatus,
    AccountView,
    ChainHead,
    EntryKind,
    EntryView,
    HoldStatus,
    HoldView,
    PostingView,
    StatusChangeView,
)

__all__ = [
    "GENESIS_HASH",
    "JOURNAL_CHAIN",
    "AccountStatus",
    "AccountView",
    "ChainHead",
    "ChainLink",
    "EntryKind",
    "EntryProof",
    "EntryView",
    "HoldStatus",
    "HoldView",
    "Ledger",
    "Leg",
    "PostingView",
    "RowSigner",
    "SignatureProblem",
    "StatusChangeView",
    "TokenSpend",
    "clearing_account_id",
    "content_hash",
    "entry_hash",
    "entry_message",
    "funding_account_id",
    "metadata",
    "pending_hold_key",
    "proof_hash",
    "seal_hash",
    "spend_operator_token",
    "system_account_id",
]
