"""Reconciliation as verified operator actions: the client sends the statement file (inline, by
value) or the act to the worker's statement workflow, which checks the operator's proof, writes
the rows and the audit record. This side only reads the books."""

from __future__ import annotations

import uuid

from pydantic import JsonValue
from temporalio.client import WorkflowHandle
from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import ApplicationError

from sagas.client._operator_actions import OperatorActions, _refusal, _result, _verified
from sagas.client._operator_credentials import bound_token, required_operator
from sagas.engine import OperatorBinding
from sagas.reconcile import (
    DEFAULT_MAX_BYTES,
    STATEMENT_ACTION_PREFIX,
    STATEMENT_ACTION_WORKFLOW,
    BreakView,
    CsvMapping,
    Reconciliation,
    StatementAct,
    StatementActionRequest,
    StatementOutcome,
    StatementUpload,
    refuse_size,
)


class ReconcileActions:
    """A ledger's reconciliation, acted on as the client's operator; `books` only reads."""

    def __init__(
        self, actions: OperatorActions, books: Reconciliation, max_bytes: int = DEFAULT_MAX_BYTES
    ) -> None:
        self.actions = actions
        self.books = books
        self.max_bytes = max_bytes

    async def import_statement(
        self,
        content: bytes,
        *,
        name: str,
        csv_mapping: CsvMapping | None = None,
        note: str = "",
        dry_run: bool = False,
    ) -> dict[str, JsonValue]:
        """Have the worker read the file, keep it and match: the `statement_imported` record's
        facts (the file's hash, its lines, and how many were added, matched, opened, closed).
        A file over `max_bytes` is refused here, naming the limit, before anything is sent.
        `dry_run`: the worker does all of it in a transaction it rolls back, and the facts
        add what it would match and open (`matches`, `breaks`, `closes`, `open_after`);
        nothing is written, no record."""
        refuse_size(len(content), self.max_bytes)
        upload = StatementUpload.of(content, name, csv_mapping)
        return await self._act(StatementAct.IMPORT, note, upload=upload, dry_run=dry_run)

    async def run(self, note: str = "", *, dry_run: bool = False) -> dict[str, JsonValue]:
        """Have the worker match again, as the `reconciliation_run` record says; `dry_run`:
        what it would match and open, nothing written."""
        return await self._act(StatementAct.RUN, note, dry_run=dry_run)

    async def explain(self, break_id: int, note: str, evidence: str) -> BreakView:
        """Have the worker explain the break; the break as it stands then."""
        self.books.find_break(break_id)
        await self._act(StatementAct.EXPLAIN, note, break_id=break_id, evidence=evidence)
        return self.books.find_break(break_id)

    async def _act(
        self,
        act: StatementAct,
        note: str,
        *,
        upload: StatementUpload | None = None,
        break_id: int | None = None,
        evidence: str = "",
        dry_run: bool = False,
    ) -> dict[str, JsonValue]:
        dry = "-dry-run" if dry_run else ""
        workflow_id = f"{STATEMENT_ACTION_PREFIX}{act}{dry}-{uuid.uuid4().hex}"
        binding = OperatorBinding(workflow_id=workflow_id, action=act.binding(dry_run))
        request = StatementActionRequest(
            act=act,
            note=note,
            proof=bound_token(required_operator(self.actions.operator), binding),
            upload=upload,
            break_id=break_id,
            evidence=evidence,
            dry_run=dry_run,
        )
        handle: WorkflowHandle[
            object, StatementOutcome
        ] = await self.actions.temporal.start_workflow(
            STATEMENT_ACTION_WORKFLOW,
            request,
            id=workflow_id,
            task_queue=self.actions.task_queue,
            id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            result_type=StatementOutcome,
            static_summary=f"reconcile {act}"
            + (f" {upload.name}" if upload else "")
            + (" (dry run)" if dry_run else ""),
        )
        await _verified(handle)
        outcome: StatementOutcome = await _result(handle)
        if outcome.refused is not None:
            raise _refusal(ApplicationError(outcome.refused, type=outcome.refused_type))
        return outcome.facts
