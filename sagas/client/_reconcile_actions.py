"""Reconciliation as verified operator actions: the worker checks the operator's proof before
the statement is kept or a break changes, and records what was done under their name."""

from __future__ import annotations

import hashlib

from pydantic import JsonValue

from sagas.client._operator_actions import OperatorActions
from sagas.client._operator_credentials import required_operator
from sagas.engine import AuditKind
from sagas.reconcile import BreakView, CsvMapping, Reconciliation, RunResult, read_statement


class ReconcileActions:
    """A ledger's reconciliation, acted on as the client's operator."""

    def __init__(self, actions: OperatorActions, books: Reconciliation) -> None:
        self.actions = actions
        self.books = books

    async def import_statement(
        self,
        content: bytes,
        *,
        name: str,
        csv_mapping: CsvMapping | None = None,
        note: str = "",
    ) -> dict[str, JsonValue]:
        """Read the file, keep it and match: what was imported, matched, opened and closed, as
        the `statement_imported` record says."""
        statement = read_statement(content, csv_mapping=csv_mapping)
        sha256 = hashlib.sha256(content).hexdigest()
        subject = f"{statement.format}-{sha256[:16]}"
        operator = required_operator(self.actions.operator).name
        kind = AuditKind.STATEMENT_IMPORTED
        async with self.actions.taken(kind, "statement", subject, note) as facts:
            result = self.books.import_statement(
                statement, content, name=name, imported_by=operator
            )
            facts |= {
                "file": name,
                "sha256": sha256,
                "format": str(statement.format),
                "statement_id": statement.statement_id,
                "lines": result.lines,
                "added_lines": result.added_lines,
                "new": result.new,
                **run_facts(result.run),
            }
        return facts

    async def run(self, note: str = "") -> dict[str, JsonValue]:
        """Match again, as the `reconciliation_run` record says."""
        kind = AuditKind.RECONCILIATION_RUN
        async with self.actions.taken(kind, "reconciliation", "ledger", note) as facts:
            facts |= run_facts(self.books.run())
        return facts

    async def explain(self, break_id: int, note: str, evidence: str) -> BreakView:
        self.books.find_break(break_id)
        operator = required_operator(self.actions.operator).name
        kind = AuditKind.BREAK_EXPLAINED
        async with self.actions.taken(kind, "break", str(break_id), note) as facts:
            view = self.books.explain(break_id, note=note, evidence=evidence, operator=operator)
            facts |= {"break_id": break_id, "kind": str(view.kind), "evidence": evidence}
        return view


def run_facts(result: RunResult) -> dict[str, JsonValue]:
    def brief(views: list[BreakView]) -> list[JsonValue]:
        return [{"break_id": v.break_id, "kind": str(v.kind)} for v in views]

    opened, closed = brief(result.opened), brief(result.closed)
    return {"matched": result.matched, "opened": opened, "closed": closed}
