import sagas.audit


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
