"""Statements we did not write: for each file of tests/reconcile/dialects, modelled on a real
bank's dialect (its manifest.toml says which), the lines the importer accounts for are those
that count.py counts without any of the importer's code, with the same signed total; importing
the file again adds nothing."""

from __future__ import annotations

import ast
import sys
import uuid
from decimal import Decimal
from typing import Any

import pytest

from sagas import reconcile
from sagas.foundations import InvalidRequestError
from sagas.ledger import Ledger
from sagas.reconcile import (
    BreakKind,
    CsvMapping,
    ImportResult,
    LineDirection,
    ReconcilePolicy,
    Reconciliation,
    Statement,
    read_statement,
)
from tests.reconcile.dialects import FOLDER, Fixture, count, fixtures

FIXTURES = fixtures()
PLACEHOLDERS = frozenset({"NOTPROVIDED", "NONREF"})
"""What banks write where a reference is not given: never a reference."""

UNREAD: dict[str, str] = {}
"""Files the importer cannot read whole yet (issue 46, parts being built beside this one):
their tests are expected to fail, strictly, so that each one fixed says to take it out."""
MISREAD: dict[str, str] = {}
"""Files read whole whose references are not read right yet (strictly expected to fail)."""


def _cases(*, refused: bool = False, pending: dict[str, str] | None = None) -> list[Any]:
    """The fixtures to be refused, or those to be imported; `pending` marks those expected to
    fail, and why."""
    cases = []
    for fixture in FIXTURES:
        if (fixture.expect == "refused") != refused:
            continue
        marks = []
        if fixture.file in UNREAD:
            unread = UNREAD[fixture.file]
            marks = [pytest.mark.xfail(reason=unread, raises=InvalidRequestError, strict=True)]
        elif pending and fixture.file in pending:
            wrong = pending[fixture.file]
            marks = [pytest.mark.xfail(reason=wrong, raises=AssertionError, strict=True)]
        cases.append(pytest.param(fixture, id=fixture.file, marks=marks))
    return cases


def _read_all(data: bytes, mapping: CsvMapping | None) -> tuple[Statement, ...]:
    """Every statement of a file, in order. Until `read_statements` is merged, a file holds one
    statement: `read_statement` refuses the others, and the test says so."""
    read_statements: Any = getattr(reconcile, "read_statements", None)
    if read_statements is not None:
        return tuple(read_statements(data, csv_mapping=mapping))
    return (read_statement(data, csv_mapping=mapping),)


def _import_all(
    books: Reconciliation, statements: tuple[Statement, ...], content: bytes, name: str
) -> ImportResult:
    """The file imported with all its statements (one, until `import_statements` is merged)."""
    action = f"statement-action-{uuid.uuid4().hex[:12]}"
    import_statements: Any = getattr(books, "import_statements", None)
    if import_statements is not None:
        result: ImportResult = import_statements(
            statements, content, name=name, imported_by="t", action_id=action
        )
        return result
    (statement,) = statements
    return books.import_statement(statement, content, name=name, imported_by="t", action_id=action)


def _mapping(fixture: Fixture) -> CsvMapping | None:
    return None if fixture.mapping is None else CsvMapping.from_dict(fixture.mapping)


def _total(statement: Statement) -> Decimal:
    """Credits minus debits, in the currency's units."""
    total = Decimal(0)
    for line in statement.lines:
        amount = Decimal(line.amount.minor).scaleb(-line.amount.currency.exponent)
        total += amount if line.direction is LineDirection.CREDIT else -amount
    return total


@pytest.fixture
def books(ledger: Ledger) -> Reconciliation:
    return Reconciliation(ledger, [], ReconcilePolicy())


def _imports(source: str) -> set[str]:
    """The top-level packages a module's source imports."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    return names


def test_the_counter_shares_no_code_with_the_importer() -> None:
    imported = _imports((FOLDER / "count.py").read_text(encoding="utf-8"))

    assert imported
    assert imported - {"__future__"} <= sys.stdlib_module_names


def test_every_file_of_the_folder_is_in_the_manifest() -> None:
    files = {path.name for path in FOLDER.iterdir() if path.suffix in {".sta", ".xml", ".csv"}}

    assert files == {fixture.file for fixture in FIXTURES}
    assert len(FIXTURES) == len(files)


def test_the_docs_table_states_each_fixture_as_the_manifest_does() -> None:
    docs = (FOLDER.parents[2] / "docs" / "reconciliation.md").read_text(encoding="utf-8")
    section = docs.split("## Statements we test against", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("| `")]

    stated = [[cell.strip() for cell in row.strip("|").split(" | ")] for row in rows]

    assert [(r[0], r[1], r[3], r[4]) for r in stated] == [
        (f"`{f.file}`", f.format, str(f.statements), ", ".join(map(str, f.lines))) for f in FIXTURES
    ]


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda fixture: fixture.file)
def test_the_manifest_states_what_the_counter_counts(fixture: Fixture) -> None:
    counted = count.count_file(fixture.path, fixture.mapping)

    assert len(counted) == fixture.statements
    assert tuple(statement.lines for statement in counted) == fixture.lines
    assert sum(statement.zero for statement in counted) == fixture.zero_amount
    unbalanced = [statement for statement in counted if statement.balanced is False]
    assert bool(unbalanced) == (fixture.expect in {"unbalanced", "refused"})


@pytest.mark.parametrize("fixture", _cases())
def test_the_importer_reads_the_lines_and_totals_the_counter_counts(fixture: Fixture) -> None:
    counted = count.count_file(fixture.path, fixture.mapping)

    statements = _read_all(fixture.path.read_bytes(), _mapping(fixture))

    assert [len(statement.lines) for statement in statements] == [c.lines for c in counted]
    assert [(_total(s), s.currency) for s in statements] == [(c.total, c.currency) for c in counted]


@pytest.mark.parametrize("fixture", _cases())
def test_every_line_of_the_file_is_accounted_for(books: Reconciliation, fixture: Fixture) -> None:
    counted = count.count_file(fixture.path, fixture.mapping)
    content = fixture.path.read_bytes()

    result = _import_all(books, _read_all(content, _mapping(fixture)), content, fixture.file)

    accounts = [(s.read, s.new, s.known, s.refused, s.zero_amount) for s in result.statements]
    assert accounts == [(c.lines, c.lines, 0, 0, c.zero) for c in counted]
    assert sum(s.new + s.known + s.refused for s in result.statements) == sum(
        c.lines for c in counted
    )
    assert result.added_lines == sum(c.lines for c in counted)
    unbalanced = books.breaks(kind=BreakKind.STATEMENT_UNBALANCED)
    assert len(unbalanced) == sum(c.balanced is False for c in counted)
    assert len(books.breaks(kind=BreakKind.STATEMENT_GAP)) == count.gaps(counted)


@pytest.mark.parametrize("fixture", _cases())
def test_importing_the_file_again_adds_nothing(books: Reconciliation, fixture: Fixture) -> None:
    counted = count.count_file(fixture.path, fixture.mapping)
    content = fixture.path.read_bytes()
    statements = _read_all(content, _mapping(fixture))
    first = _import_all(books, statements, content, fixture.file)
    breaks = len(books.breaks())

    again = _import_all(books, statements, content, fixture.file)

    assert (again.file_id, again.new, again.added_lines) == (first.file_id, False, 0)
    accounts = [(s.read, s.new, s.known, s.refused) for s in again.statements]
    assert accounts == [(c.lines, 0, c.lines, 0) for c in counted]
    assert len(books.breaks()) == breaks


@pytest.mark.parametrize("fixture", _cases(pending=MISREAD))
def test_our_references_are_read_and_no_placeholder_is_one(fixture: Fixture) -> None:
    statements = _read_all(fixture.path.read_bytes(), _mapping(fixture))

    read = {line.end_to_end_id for s in statements for line in s.lines} | {
        t.end_to_end_id for s in statements for line in s.lines for t in line.transactions
    }

    assert set(fixture.end_to_end_ids) <= read
    assert not read & PLACEHOLDERS


@pytest.mark.parametrize("fixture", _cases(refused=True))
def test_a_refused_file_names_its_field(fixture: Fixture) -> None:
    with pytest.raises(InvalidRequestError) as refused:
        _read_all(fixture.path.read_bytes(), _mapping(fixture))

    assert fixture.refused_field is not None
    assert fixture.refused_field in refused.value.field
