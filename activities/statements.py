"""Reconciliation actions on the worker: a statement read and kept, matching run, a break
explained, each inside a verified operator's action and under the deployment's rules; and the
dry run of an import or a run, the same code in a transaction that is rolled back.

Each returns the facts its audit record states: counts of the rows stamped with the action's
id, never the rows, so the record stays small whatever the file holds; a retried attempt counts
what every attempt of the action wrote.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pydantic import JsonValue
from temporalio import activity

from sagas.engine import SagaDefinition, to_application_error
from sagas.foundations import FundsagaError, InvalidRequestError
from sagas.ledger import Ledger
from sagas.reconcile import (
    DRY_RUN_ACTIVITY,
    EXPLAIN_BREAK_ACTIVITY,
    IMPORT_STATEMENT_ACTIVITY,
    RECONCILE_RUN_ACTIVITY,
    Reconciliation,
    StatementCall,
    StatementRules,
    dry_run,
    policy_facts,
    read_statements,
)


class StatementActivities:
    def __init__(
        self,
        ledger: Ledger,
        definitions: Iterable[SagaDefinition[Any, Any]],
        rules: StatementRules,
    ) -> None:
        self.rules = rules
        self.books = Reconciliation(ledger, definitions, rules.policy, rules.matching_rules)

    def all(self) -> list[Callable[..., Any]]:
        return [self.import_statement, self.run, self.explain, self.dry_run]

    @activity.defn(name=IMPORT_STATEMENT_ACTIVITY)
    def import_statement(self, call: StatementCall) -> dict[str, JsonValue]:
        """Check the file against the limits, read it, keep its new lines and match."""
        return _guarded(lambda: self._import(call))

    @activity.defn(name=RECONCILE_RUN_ACTIVITY)
    def run(self, call: StatementCall) -> dict[str, JsonValue]:
        """Match again, under the deployment's policy."""
        return _guarded(lambda: self._run(call))

    @activity.defn(name=EXPLAIN_BREAK_ACTIVITY)
    def explain(self, call: StatementCall) -> dict[str, JsonValue]:
        return _guarded(lambda: self._explain(call))

    @activity.defn(name=DRY_RUN_ACTIVITY)
    def dry_run(self, call: StatementCall) -> dict[str, JsonValue]:
        """An import (the call carries its file) or a run, rolled back: what it would keep,
        match and open."""
        return _guarded(lambda: self._dry_run(call))

    def _dry_run(self, call: StatementCall) -> dict[str, JsonValue]:
        with dry_run(self.books) as books:
            act = self._import if call.upload is not None else self._run
            facts = act(call, books)
            proposal = books.proposal(call.action_id)
        _unnumbered(facts, proposal.rolled_back_breaks)
        if facts.get("new") is True:
            facts["file_id"] = None  # the file would be kept; it has no id
        return {**facts, **proposal.facts(), "dry_run": True}

    def _import(
        self, call: StatementCall, books: Reconciliation | None = None
    ) -> dict[str, JsonValue]:
        books = books or self.books
        upload = call.upload
        if upload is None:
            raise InvalidRequestError("FILE", "an import carries its file")
        content = upload.content()
        self.rules.check_size(content)
        statements = read_statements(
            content, csv_mapping=upload.mapping(), max_lines=self.rules.max_lines
        )
        result = books.import_statements(
            statements,
            content,
            name=upload.name,
            imported_by=call.operator,
            action_id=call.action_id,
        )
        return {
            "file": upload.name,
            "sha256": result.sha256,
            "file_id": result.file_id,
            "format": str(statements[0].format),
            # The first statement's, as records named it when a file held one; `statements`
            # lists each.
            "statement_id": statements[0].statement_id,
            "lines": result.lines,
            "new": result.new,
            **result.accounted_facts(),
            **self._counts(call.action_id, books),
        }

    def _run(
        self, call: StatementCall, books: Reconciliation | None = None
    ) -> dict[str, JsonValue]:
        books = books or self.books
        books.run(action_id=call.action_id)
        return self._counts(call.action_id, books)

    def _explain(self, call: StatementCall) -> dict[str, JsonValue]:
        if call.break_id is None:
            raise InvalidRequestError("BREAK", "an explanation names its break")
        view = self.books.explain(
            call.break_id, note=call.note, evidence=call.evidence, operator=call.operator
        )
        return {"break_id": view.break_id, "kind": str(view.kind), "evidence": view.evidence}

    def _counts(self, action_id: str, books: Reconciliation) -> dict[str, JsonValue]:
        """What the action's rows add up to, and the policy and rules it matched under."""
        counts = books.action_counts(action_id)
        return {
            "added": counts.lines,
            "matched": counts.matched,
            "opened": counts.opened,
            "closed": counts.closed,
            **policy_facts(self.rules.policy),
            **books.rules.facts(),
        }


def _unnumbered(facts: dict[str, JsonValue], rolled_back: frozenset[int]) -> None:
    """A refusal's break that a dry run opened has no id: it was rolled back."""
    statements = facts.get("statements")
    for statement in statements if isinstance(statements, list) else []:
        refusals = statement.get("refusals") if isinstance(statement, dict) else None
        for refusal in refusals if isinstance(refusals, list) else []:
            if isinstance(refusal, dict) and refusal.get("break_id") in rolled_back:
                refusal["break_id"] = None


def _guarded(work: Callable[[], dict[str, JsonValue]]) -> dict[str, JsonValue]:
    """A business refusal crosses into Temporal typed and non-retryable."""
    try:
        return work()
    except FundsagaError as err:
        raise to_application_error(err, activity.info().attempt) from err
