"""Every built-in saga type declares the money its request asks for: the Web UI's current
details show it beside the saga's status (docs/web-ui.md). Read from one demo plan per type."""

from __future__ import annotations

import pytest

from sagas.demo import DEMO_PLANS
from sagas.foundations import Money
from sagas.registry import built_in_registry

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
