import sagas.audit


def test_the_public_names_change_only_on_purpose() -> None:
    assert sorted(sagas.audit.__all__) == [
        "AnchorStore",
        "AnchoredAuditStore",
        "AuditKeys",
        "AuditRecord",
        "AuditStore",
        "Checkpoint",
        "GENESIS_HASH",
        "Keyring",
        "PUBLIC_KEYS_SETTING",
        "SIGNING_KEY_SETTING",
        "SigningKey",
        "VerifyResult",
        "metadata",
        "open_audit_store",
        "public_pem",
        "take_checkpoint",
    ]
    assert all(hasattr(sagas.audit, name) for name in sagas.audit.__all__)


def test_the_record_fields_are_the_contract() -> None:
    assert list(sagas.audit.AuditRecord.model_fields) == [
        "sequence",
        "recorded_at",
        "kind",
        "saga_id",
        "dedupe_key",
        "payload",
        "prev_hash",
        "key_id",
        "hash",
        "signature",
    ]
