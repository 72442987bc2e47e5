"""A batch's request: every item checked as its saga's request before anything starts."""

from __future__ import annotations

from typing import Any

import pytest

from sagas import InvalidRequestError
from sagas.engine import MAX_BATCH_ITEMS, MAX_CONCURRENCY, BatchDefinition, BatchRequest
from sagas.payouts import EXTERNAL_PAYOUT_SAGA, PAYOUT_BATCH, PayoutBatchRequest, PayoutRequest
from sagas.registry import load_registry
from sagas.transfer import TransferRequest

ITEM: dict[str, Any] = {
    "account": "acc-a",
    "beneficiary": "DE89370400440532013000",
    "currency": "EUR",
    "amount": "40.00",
}


def parse(**changes: Any) -> PayoutBatchRequest:
    request = {"idempotency_key": "run-7", "items": [ITEM, ITEM], **changes}
    parsed = load_registry().parse_request(PAYOUT_BATCH, request)
    assert isinstance(parsed, PayoutBatchRequest)
    return parsed


def refused_field(**changes: Any) -> str:
    with pytest.raises(InvalidRequestError) as caught:
        parse(**changes)
    return caught.value.field


def test_each_item_is_a_payout_keyed_by_the_batch_key_and_its_number() -> None:
    request = parse()

    assert [request.item_request(n) for n in (1, 2)] == [
        PayoutRequest(idempotency_key=f"run-7-{n}", **ITEM) for n in (1, 2)
    ]
    assert request.account_fields() == {"items[1].account": "acc-a", "items[2].account": "acc-a"}


@pytest.mark.parametrize(
    ("item", "field"),
    [
        ({**ITEM, "amount": "-1"}, "items[2].amount"),
        ({**ITEM, "currency": "eur"}, "items[2].currency"),
        ({**ITEM, "beneficiary": ""}, "items[2].beneficiary"),
        ({**ITEM, "settle_wait_seconds": 0}, "items[2].settle_wait_seconds"),
        ({**ITEM, "colour": "red"}, "items[2].colour"),
        ({**ITEM, "idempotency_key": "mine"}, "items[2].idempotency_key"),
        ({k: v for k, v in ITEM.items() if k != "account"}, "items[2].account"),
    ],
)
def test_a_bad_item_is_refused_naming_its_number_and_field(
    item: dict[str, Any], field: str
) -> None:
    assert refused_field(items=[ITEM, item]) == field


@pytest.mark.parametrize("items", [[], [ITEM] * (MAX_BATCH_ITEMS + 1)])
def test_a_batch_holds_one_to_the_maximum_of_items(items: list[dict[str, Any]]) -> None:
    assert refused_field(items=items) == "items"


def test_the_maximum_is_accepted() -> None:
    assert len(parse(items=[ITEM] * MAX_BATCH_ITEMS).items) == MAX_BATCH_ITEMS


@pytest.mark.parametrize("concurrency", [0, MAX_CONCURRENCY + 1, "3"])
def test_a_bad_concurrency_is_refused_naming_it(concurrency: object) -> None:
    assert refused_field(concurrency=concurrency) == "concurrency"


def test_a_batch_key_leaves_room_for_the_item_numbers() -> None:
    assert refused_field(idempotency_key="k" * 124) == "idempotency_key"
    assert parse(idempotency_key="k" * 123).item_key(MAX_BATCH_ITEMS) == "k" * 123 + "-1000"


def test_a_batch_type_refuses_items_of_another_saga_type() -> None:
    class TransferBatchRequest(BatchRequest):
        item_request_type = TransferRequest

    with pytest.raises(ValueError, match="PayoutRequest"):
        BatchDefinition(
            saga_type="odd-batch",
            request_type=TransferBatchRequest,
            item_saga=EXTERNAL_PAYOUT_SAGA,
            item_workflow="ExternalPayoutWorkflow",
        )
