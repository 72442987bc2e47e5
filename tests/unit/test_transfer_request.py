from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from sagas import InvalidRequestError
from sagas.transfer import TransferRequest

GOOD: dict[str, Any] = {
    "idempotency_key": "order-42",
    "source_account": "acc-a",
    "destination_account": "acc-b",
    "currency": "EUR",
    "amount": "100.00",
}


def refused_field(**changes: Any) -> str:
    with pytest.raises(InvalidRequestError) as caught:
        TransferRequest.parse({**GOOD, **changes})
    assert str(caught.value).startswith(f"{caught.value.field}: ")
    return caught.value.field


@pytest.mark.parametrize(
    "amount", ["0", "0.00", "-5", "abc", "NaN", "Infinity", "1.001", "1e3", "", 12.5, 100, None]
)
def test_a_bad_amount_is_refused_naming_amount(amount: object) -> None:
    assert refused_field(amount=amount) == "amount"


@pytest.mark.parametrize("currency", ["XYZ", "eur", "", 978])
def test_a_bad_currency_is_refused_naming_currency(currency: object) -> None:
    assert refused_field(currency=currency) == "currency"


def test_an_amount_with_more_decimals_than_its_currency_is_refused() -> None:
    assert refused_field(currency="JPY", amount="100.00") == "amount"


def test_a_transfer_to_the_same_account_is_refused_naming_the_destination() -> None:
    assert refused_field(destination_account="acc-a") == "destination_account"


@pytest.mark.parametrize("account", ["", "acc a", "-acc", "a" * 65, "acc\u202eb"])
@pytest.mark.parametrize("field", ["source_account", "destination_account"])
def test_a_bad_account_id_is_refused_naming_its_field(field: str, account: str) -> None:
    assert refused_field(**{field: account}) == field


@pytest.mark.parametrize(
    "reference",
    ["bell\x07", "nul\x00", "tab\tstop", "abc\u202edef", "zero\u200bwidth", "x" * 10_000],
    ids=["control", "nul", "tab", "rtl-override", "zero-width-space", "10000-chars"],
)
def test_a_bad_reference_is_refused_naming_reference(reference: str) -> None:
    assert refused_field(reference=reference) == "reference"


@pytest.mark.parametrize("reference", ["", "Invoice 2024-17 — café", "x" * 140])
def test_a_plain_reference_is_accepted(reference: str) -> None:
    assert TransferRequest.parse({**GOOD, "reference": reference}).reference == reference


@pytest.mark.parametrize("key", ["", "has space", "ключ", "k" * 129, "-leading", 42])
def test_a_bad_idempotency_key_is_refused_naming_it(key: object) -> None:
    assert refused_field(idempotency_key=key) == "idempotency_key"


def test_an_unknown_extra_field_is_refused_naming_it() -> None:
    assert refused_field(callback_url="https://example.com") == "callback_url"


@pytest.mark.parametrize("deadline", [0, -1, 30 * 24 * 3600 + 1, True, "60"])
def test_a_bad_deadline_is_refused_naming_it(deadline: object) -> None:
    assert refused_field(deadline_seconds=deadline) == "deadline_seconds"


@pytest.mark.parametrize("missing", ["idempotency_key", "source_account", "currency", "amount"])
def test_a_missing_field_is_refused_naming_it(missing: str) -> None:
    data = {name: value for name, value in GOOD.items() if name != missing}

    with pytest.raises(InvalidRequestError) as caught:
        TransferRequest.parse(data)

    assert caught.value.field == missing


def test_input_that_is_not_an_object_is_refused_naming_the_request() -> None:
    not_a_dict: Any = ["acc-a", "acc-b"]

    with pytest.raises(InvalidRequestError) as caught:
        TransferRequest.parse(not_a_dict)

    assert caught.value.field == "request"


def test_a_good_request_describes_itself() -> None:
    request = TransferRequest.parse(GOOD)

    assert request.summary() == "Transfer 100.00 EUR acc-a → acc-b"
    assert request.money.minor == 10000
    assert request.touched_accounts() == {"acc-a", "acc-b"}


def test_a_request_cannot_be_changed_after_parsing() -> None:
    request = TransferRequest.parse(GOOD)

    with pytest.raises(ValidationError):
        request.amount = "1.00"  # type: ignore[misc]


def test_equal_requests_have_equal_fingerprints() -> None:
    first = TransferRequest.parse(GOOD).fingerprint()

    assert first == TransferRequest.parse(dict(reversed(GOOD.items()))).fingerprint()
    assert len(first) == 64


@pytest.mark.parametrize(
    "change",
    [
        {"amount": "100.01"},
        {"destination_account": "acc-c"},
        {"currency": "USD"},
        {"reference": "rent"},
        {"deadline_seconds": 60},
    ],
    ids=lambda change: next(iter(change)),
)
def test_a_different_request_has_a_different_fingerprint(change: dict[str, Any]) -> None:
    original = TransferRequest.parse(GOOD).fingerprint()

    assert TransferRequest.parse({**GOOD, **change}).fingerprint() != original


def test_the_json_schema_lists_the_required_fields_and_takes_amount_as_text() -> None:
    schema = TransferRequest.model_json_schema()

    assert set(schema["required"]) == {
        "idempotency_key",
        "source_account",
        "destination_account",
        "currency",
        "amount",
    }
    assert schema["properties"]["amount"]["type"] == "string"
    assert schema["additionalProperties"] is False
