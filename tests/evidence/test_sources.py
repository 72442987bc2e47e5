"""The pack names where its figures were read, never a password."""

from __future__ import annotations

from sagas.foundations import Settings
from sagas.verify import sources_of


def test_the_sources_name_no_password() -> None:
    settings = Settings(
        FUNDSAGA_DATABASE_URL="postgresql+psycopg://worker:s3cret@db:5432/fundsaga?sslmode=require",
        FUNDSAGA_AUDIT_STORE="db:postgresql://writer:pw@audit-db/audit",
        FUNDSAGA_AUDIT_ANCHOR_STORE="dir:/anchors",
        TEMPORAL_ADDRESS="temporal:7233",
        TEMPORAL_NAMESPACE="payments",
    )

    sources = sources_of(settings)

    assert sources.model_dump() == {
        "database": "postgresql+psycopg://worker@db:5432/fundsaga?sslmode=require",
        "audit_store": "db:postgresql://writer@audit-db/audit",
        "anchor_store": "dir:/anchors",
        "temporal_address": "temporal:7233",
        "temporal_namespace": "payments",
    }
