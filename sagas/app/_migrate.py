"""Which databases `fundsaga db upgrade` and `fundsaga dev` bring to the head migration."""

from __future__ import annotations

from sagas.foundations import Settings


def databases_to_migrate(settings: Settings) -> list[str]:
    """The ledger's database, and the audit store's when it is a table elsewhere."""
    urls = [settings.database_url]
    spec = settings.audit_store
    audit_url = spec.removeprefix("db:") if spec.startswith("db:") else None
    if audit_url and audit_url != settings.database_url:
        urls.append(audit_url)
    return urls
