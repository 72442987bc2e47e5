"""`fundsaga reconcile` against a running stack: a statement with a line the ledger lacks is
imported once, its break explained, proposed and approved by two operators with an adjusting
entry that the ledger's verification witnesses."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest
from typer.testing import Result

from sagas.audit import open_audit_store
from sagas.engine import resolution_id
from tests.fixtures_audit import TEST_KEYS
from tests.fixtures_cli import CLI_OPERATOR, MAKER, Stack, fundsaga
from tests.provider.http import call
from tooling.provider import ProviderProcess


def returned_statement(stack: Stack) -> str:
    """The simulator's camt.053 of today: one credit no payout of the ledger explains."""
    with ProviderProcess() as provider:
        body = {"key": "RETURN-OF-OLD-1", "amount": "5.00", "currency": "EUR"}
        assert (
            call(f"{provider.url}/statement-lines", "POST", body | {"direction": "credit"}).status
            == 201
        )
        with urllib.request.urlopen(f"{provider.url}/statements?format=camt053") as answer:
            data = answer.read()
    path = stack.home / "camt053-today.xml"
    path.write_bytes(data)
    return str(path)


def out(result: Result) -> dict[str, Any]:
    found: dict[str, Any] = json.loads(result.stdout)
    return found


async def test_a_break_is_found_explained_and_resolved_by_two_operators(cli_stack: Stack) -> None:
    file = returned_statement(cli_stack)
    before = cli_stack.ledger.account("alice").balance

    first = await fundsaga(cli_stack, "reconcile", "import", file, "-o", "json")
    again = await fundsaga(cli_stack, "reconcile", "import", file, "-o", "json")
    (found,) = json.loads((await fundsaga(cli_stack, "reconcile", "breaks", "-o", "json")).stdout)
    number = str(found["break"])
    explained = await fundsaga(
        cli_stack, "reconcile", "explain", number, "--note", "a return", "--evidence", "CASE-7"
    )
    while_open = await fundsaga(cli_stack, "audit", "compensations", "-o", "json")
    proposed = await fundsaga(
        cli_stack,
        "reconcile",
        "resolve",
        number,
        "--note",
        "returned by the bank: credit the customer",
        "--adjust-account",
        "alice",
        "--adjust-amount",
        "5.00",
        "-o",
        "json",
        FUNDSAGA_OPERATOR=MAKER,
    )
    own = await fundsaga(cli_stack, "reconcile", "approve", number, FUNDSAGA_OPERATOR=MAKER)
    approved = await fundsaga(cli_stack, "reconcile", "approve", number, "-o", "json")
    closed = await fundsaga(cli_stack, "reconcile", "resolve", number, "--note", "again")
    remaining = await fundsaga(cli_stack, "reconcile", "breaks", "-o", "json")
    every = await fundsaga(cli_stack, "reconcile", "breaks", "--all", "-o", "json")

    assert (first.exit_code, out(first)["new"], out(first)["open_breaks"]) == (1, True, 1)
    assert (out(first)["added"], out(first)["opened"]) == (1, 1)
    assert (again.exit_code, out(again)["new"], out(again)["opened"]) == (1, False, 0)
    assert (found["kind"], found["statement"]) == ("missing_in_ledger", "5.00 EUR")
    assert explained.exit_code == 0, explained.output
    assert while_open.exit_code == 1
    assert (
        f"reconciliation: break {number} missing_in_ledger (explained): the statement booked a "
        "credit of 500"
    ) in "\n".join(out(while_open)["findings"])
    assert out(while_open)["rail_movements"] == []  # no saga type of this stack moves a rail
    assert (proposed.exit_code, out(proposed)["status"]) == (0, "AWAITING_APPROVAL")
    assert own.exit_code == 1
    assert "another operator approves" in own.output
    assert approved.exit_code == 0, approved.output
    assert (out(approved)["status"], out(approved)["entry_id"] is not None) == ("FUNDED", True)
    assert closed.exit_code == 2
    assert f"break {number} is resolved already" in closed.output
    assert json.loads(remaining.stdout) == []
    (resolved,) = json.loads(every.stdout)
    assert (resolved["status"], resolved["explained_by"]) == ("resolved", CLI_OPERATOR)
    assert resolved["adjustment_entry_id"] == out(approved)["entry_id"]
    assert cli_stack.ledger.account("alice").balance.minor - before.minor == 500

    store = open_audit_store(cli_stack.env["FUNDSAGA_AUDIT_STORE"], TEST_KEYS)
    kinds = [r.kind for r in store.records() if r.saga_id == resolution_id(int(number))]
    store.close_connections()
    assert kinds == ["break_resolution_proposed", "break_resolved"]
    verified = await fundsaga(cli_stack, "ledger", "verify", "-o", "json")
    findings = json.loads(verified.stdout)["findings"]
    assert [f for f in findings if f"break-{number}" in f or "no funding" in f] == []
    assert [f for f in findings if f.startswith("reconciliation:")] == []


@pytest.mark.parametrize(
    ("argv", "field"),
    [
        (["reconcile", "import", "/no/such/file.xml"], "FILE"),
        (["reconcile", "explain", "999", "--note", "x"], "BREAK"),
        (["reconcile", "resolve", "999", "--note", "x"], "BREAK"),
    ],
)
async def test_bad_input_names_its_field(cli_stack: Stack, argv: list[str], field: str) -> None:
    result = await fundsaga(cli_stack, *argv)

    assert result.exit_code == 2
    assert field in result.output
