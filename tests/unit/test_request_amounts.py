"""Every built-in saga type declares the money its request asks for, its parties and its
reference: the Web UI's current details show the money beside the saga's status (docs/web-ui.md),
`sagas list` and `sagas view` all three. Read from one demo plan per type."""

from __future__ import annotations

from dataclasses import replace

import pytest

from sagas.demo import DEMO_PLANS
from sagas.engine import SagaAmount, SagaMoney
from sagas.foundations import Money
from sagas.registry import built_in_registry
from tests.escrow.saga import ESCROW_SAGA, EscrowRequest

REGISTRY = built_in_registry()
SAGAS = {
    plan.saga_type: plan
    for plan in DEMO_PLANS
    if REGISTRY.get(plan.saga_type).item_saga_type is None  # a batch's items are its sagas
}


def test_the_demo_has_a_plan_of_every_saga_type() -> None:
    batches = {t.definition.saga_type for t in REGISTRY if t.item_saga_type is not None}
    assert set(SAGAS) == set(REGISTRY.names()) - batches


@pytest.mark.parametrize("saga_type", sorted(SAGAS))
def test_the_request_declares_its_amounts(saga_type: str) -> None:
    fields = dict(SAGAS[saga_type].request) | {"idempotency_key": "k-1", "beneficiary": "b-1"}
    request_type = REGISTRY.get(saga_type).definition.request_type
    fields = {name: value for name, value in fields.items() if name in request_type.model_fields}

    amounts = REGISTRY.parse_request(saga_type, fields).amounts()

    assert amounts
    assert set(amounts) <= set(request_type.model_fields)
    assert all(isinstance(money, Money) and money.minor >= 0 for money in amounts.values())


@pytest.mark.parametrize("saga_type", sorted(SAGAS))
def test_the_definition_names_its_parties_and_reference(saga_type: str) -> None:
    fields = dict(SAGAS[saga_type].request) | {"idempotency_key": "k-1", "beneficiary": "b-1"}
    definition = REGISTRY.get(saga_type).definition
    fields = {
        name: value
        for name, value in fields.items()
        if name in definition.request_type.model_fields
    }
    fields["reference"] = "Invoice 7731"
    request = REGISTRY.parse_request(saga_type, fields)

    money = SagaMoney.of(definition, request)

    assert list(money.parties) == list(definition.parties)
    assert len(money.parties) >= 1
    assert all(party == fields[name] for name, party in money.parties.items())
    assert money.reference == "Invoice 7731"
    assert {name: str(amount) for name, amount in money.amounts.items()} == {
        name: str(amount) for name, amount in request.amounts().items()
    }
    assert SagaMoney.from_memo(money.memo()) == money


def test_a_saga_type_that_declares_nothing_shows_dashes() -> None:
    request = EscrowRequest(
        idempotency_key="k-1", payer="ann", payee="bea", currency="EUR", amount="5.00"
    )

    money = SagaMoney.of(ESCROW_SAGA, request)

    assert (money.amount_text(), money.parties_text(), money.reference_text()) == ("-", "-", "-")
    assert SagaMoney.from_memo(None) == SagaMoney.from_memo({"amounts": 3}) == SagaMoney()


def test_amounts_are_led_by_their_field_unless_it_is_the_amount() -> None:
    fee = SagaMoney(
        amounts={
            "fee": SagaAmount(amount="2.50", currency="EUR"),
            "tax": SagaAmount(amount="0.50", currency="EUR"),
        },
        parties={"customer_account": "acc-1"},
    )
    transfer = SagaMoney(amounts={"amount": SagaAmount(amount="100.00", currency="EUR")})

    assert (fee.amount_text(), fee.parties_text()) == ("fee 2.50 EUR, tax 0.50 EUR", "acc-1")
    assert transfer.amount_text() == "100.00 EUR"


def test_a_definition_naming_a_field_its_request_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match=r"'payee_iban' .* is not a field of EscrowRequest"):
        replace(ESCROW_SAGA, parties=("payer", "payee_iban"))
    with pytest.raises(ValueError, match=r"'ref' .* is not a field of EscrowRequest"):
        replace(ESCROW_SAGA, reference="ref")
