"""Reconciliation actions on the worker: a statement read and kept, matching run, a break
explained, each inside a verified operator's action and under the deployment's rules.

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
    EXPLAIN_BREAK_ACTIVITY,
    IMPORT_STATEMENT_ACTIVITY,
    RECONCILE_RUN_ACTIVITY,
    Reconciliation,
    StatementCall,
    StatementRules,
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
        self.books = Reconciliation(ledger, definitions, rules.policy)

    def all(self) -> list[Callable[..., Any]]:
        return [self.import_statement, self.run, self.explain]

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

    def _import(self, call: StatementCall) -> dict[str, JsonValue]:
        upload = call.upload
        if upload is None:
            raise InvalidRequestError("FILE", "an import carries its file")
        content = upload.content()
        self.rules.check_size(content)
        statements = read_statements(
            content, csv_mapping=upload.mapping(), max_lines=self.rules.max_lines
        )
        result = self.books.import_statements(
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
            **self._counts(call.action_id),
        }

    def _run(self, call: StatementCall) -> dict[str, JsonValue]:
        self.books.run(action_id=call.action_id)
        return self._counts(call.action_id)

    def _explain(self, call: StatementCall) -> dict[str, JsonValue]:
        if call.break_id is None:
            raise InvalidRequestError("BREAK", "an explanation names its break")
        view = self.books.explain(
            call.break_id, note=call.note, evidence=call.evidence, operator=call.operator
        )
        return {"break_id": view.break_id, "kind": str(view.kind), "evidence": view.evidence}

    def _counts(self, action_id: str) -> dict[str, JsonValue]:
        """What the action's rows add up to, and the policy it matched under."""
        counts = self.books.action_counts(action_id)
        return {
            "added": counts.lines,
            "matched": counts.matched,
            "opened": counts.opened,
            "closed": counts.closed,
            **policy_facts(self.rules.policy),
        }


def _guarded(work: Callable[[], dict[str, JsonValue]]) -> dict[str, JsonValue]:
    """A business refusal crosses into Temporal typed and non-retryable."""
    try:
        return work()
    except FundsagaError as err:
        raise to_application_error(err, activity.info().attempt) from err
