import sagas.ledger


def test_the_public_names_change_only_on_purpose() -> None:
    assert sorted(sagas.ledger.__all__) == [
        "AccountStatus",
        "AccountView",
        "ChainHead",
        "EntryKind",
        "EntryView",
        "GENESIS_HASH",
        "HoldStatus",
        "HoldView",
        "JOURNAL_CHAIN",
        "Ledger",
        "Leg",
        "PostingView",
        "RowSigner",
        "SignatureProblem",
        "clearing_account_id",
        "entry_hash",
        "funding_account_id",
        "metadata",
        "pending_hold_key",
        "system_account_id",
    ]
    assert all(hasattr(sagas.ledger, name) for name in sagas.ledger.__all__)
