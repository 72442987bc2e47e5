"""`fundsaga db upgrade`: the ledger's database, and the audit store's, at the head migration."""

from __future__ import annotations

import typer
from sqlalchemy import make_url

from sagas.cli._invocation import Invocation
from sagas.cli._output import Output, OutputFormat, emit, listing
from sagas.foundations import Settings, upgrade_database

app = typer.Typer(name="db", help="The database.", no_args_is_help=True)


@app.command()
def upgrade(ctx: typer.Context, output: Output = OutputFormat.TABLE) -> None:
    """Migrate the ledger's database (and the audit store's) to the head migration."""
    migrated = []
    for url in databases_to_migrate(Invocation.of(ctx).settings):
        upgrade_database(url)
        migrated.append({"database": make_url(url).render_as_string(), "at_head": True})
    emit(listing(migrated, ("database", "at_head")), output)


def databases_to_migrate(settings: Settings) -> list[str]:
    """The ledger's database, and the audit store's when it is a table elsewhere."""
    urls = [settings.database_url]
    spec = settings.audit_store
    audit_url = spec.removeprefix("db:") if spec.startswith("db:") else None
    if audit_url and audit_url != settings.database_url:
        urls.append(audit_url)
    return urls
