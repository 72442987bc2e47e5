"""What saga types declare to a Ledger: system-account roles and entry kinds."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sagas import InvalidRequestError, UnknownAccountError
from sagas.ledger import Ledger, Leg, funding_account_id, system_account_id
from sagas.registry import SagaRegistry, WorkerContext
from tests.escrow import ESCROW
from tests.ledger._money import eur


def test_a_system_account_id_names_its_role_and_currency() -> None:
    assert system_account_id("fee-income", "EUR") == "@fee-income:EUR"
    assert system_account_id("funding", "EUR") == funding_account_id("EUR") == "@funding:EUR"
    with pytest.raises(InvalidRequestError) as refused:
        system_account_id("Fee Income", "EUR")
    assert refused.value.field == "role"


@pytest.mark.parametrize(
    ("roles", "kinds", "field"),
    [
        pytest.param(["fee-income", "Fee"], ["fee"], "system_accounts", id="uppercase-role"),
        pytest.param(["fee-income", "a b"], ["fee"], "system_accounts", id="space"),
        pytest.param(["fee-income", "x" * 33], ["fee"], "system_accounts", id="long-role"),
        pytest.param("fee-income", ["fee"], "system_accounts", id="one-string"),
        pytest.param(["fee-income", "clearing"], ["fee"], "system_accounts", id="built-in-role"),
        pytest.param(["fee-income"], ["fee", ""], "entry_kinds", id="empty-kind"),
        pytest.param(["fee-income"], ["fee", "x" * 17], "entry_kinds", id="long-kind"),
        pytest.param(["fee-income"], ["fee", "fee:eur"], "entry_kinds", id="colon"),
        pytest.param(["fee-income"], ["fee", "reversal"], "entry_kinds", id="built-in-kind"),
    ],
)
def test_a_malformed_or_built_in_declaration_is_refused_and_adds_nothing(
    ledger: Ledger, roles: list[str], kinds: list[str], field: str
) -> None:
    with pytest.raises(InvalidRequestError) as refused:
        ledger.declare(system_accounts=roles, entry_kinds=kinds)

    assert refused.value.field == field
    ledger.open_account("alice", "EUR", opening_balance=eur(5))
    with pytest.raises(InvalidRequestError):
        ledger.post("k", [Leg("alice", eur(-1)), Leg("bob", eur(1))], kind="fee", saga_id="s")
    with pytest.raises(UnknownAccountError):
        ledger.transfer("t", "alice", "@fee-income:EUR", eur(1), saga_id="s")


def test_declaring_is_idempotent_and_adds_to_what_was_declared(ledger: Ledger) -> None:
    ledger.open_account("alice", "EUR", opening_balance=eur(5))
    ledger.declare(system_accounts=["fee-income"], entry_kinds=["fee"])
    ledger.declare(system_accounts=["fee-income"], entry_kinds=["fee"])
    ledger.declare(entry_kinds=["payout"])

    ledger.post(
        "f", [Leg("alice", eur(-1)), Leg("@fee-income:EUR", eur(1))], kind="fee", saga_id="s"
    )
    ledger.post(
        "p", [Leg("alice", eur(-1)), Leg("@fee-income:EUR", eur(1))], kind="payout", saga_id="s"
    )

    assert [e.kind for e in ledger.entries(saga_id="s")] == ["fee", "payout"]
    assert ledger.check_invariants() == []


def test_a_worker_declares_what_its_saga_types_declare_before_building_activities(
    ledger: Ledger,
) -> None:
    fee_escrow = replace(ESCROW, system_accounts=("fee-income",), entry_kinds=("fee",))
    other = replace(
        fee_escrow,
        definition=replace(ESCROW.definition, saga_type="escrow-two"),
        entry_kinds=("fee", "payout"),
    )
    ledger.open_account("alice", "EUR", opening_balance=eur(5))

    built = SagaRegistry([fee_escrow, other]).activities(WorkerContext(ledger=ledger))

    assert built
    entry = ledger.post(
        "s:fee:action",
        [Leg("alice", eur(-2)), Leg(system_account_id("fee-income", "EUR"), eur(2))],
        kind="payout",
        saga_id="s",
    )
    assert entry.kind == "payout"
    assert ledger.check_invariants() == []
