import sagas.ledger


def test_the_public_names_change_only_on_purpose() -> None:
    assert sorted(sagas.ledger.__all__) == [
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
    assert all(hasattr(sagas.ledger, name) for name in sagas.ledger.__all__)
