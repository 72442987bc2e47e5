"""The payload codec's keys and ciphertexts: bad keys refused by name, rotation, tampering."""

from __future__ import annotations

import base64

import pytest
from temporalio.api.common.v1 import Payload

from sagas.codec import PayloadCipher, PayloadDecryptionError, PayloadKeys
from sagas.foundations import InvalidRequestError

PLAIN = Payload(metadata={"encoding": b"json/plain"}, data=b'{"account": "acc-secret-1"}')


def keys(spec: str) -> PayloadKeys:
    parsed = PayloadKeys.parse(spec)
    assert parsed is not None
    return parsed


def test_sealed_payloads_hide_their_data_and_open_to_the_original() -> None:
    cipher = PayloadCipher(keys(PayloadKeys.generate("k1")))

    (sealed,) = cipher.seal([PLAIN])

    assert b"acc-secret-1" not in sealed.SerializeToString()
    assert sealed.metadata["encryption-key-id"] == b"k1"
    assert cipher.open([sealed]) == [PLAIN]


def test_each_seal_uses_a_fresh_nonce() -> None:
    cipher = PayloadCipher(keys(PayloadKeys.generate("k1")))

    first, second = cipher.seal([PLAIN, PLAIN])

    assert first.data != second.data


def test_old_keys_still_open_after_rotation() -> None:
    old = PayloadKeys.generate("2026-10")
    sealed_before = PayloadCipher(keys(old)).seal([PLAIN])
    rotated = PayloadCipher(keys(f"{PayloadKeys.generate('2026-11')},{old}"))

    assert rotated.open(sealed_before) == [PLAIN]
    assert rotated.seal([PLAIN])[0].metadata["encryption-key-id"] == b"2026-11"


def test_a_key_no_longer_listed_is_named() -> None:
    sealed = PayloadCipher(keys(PayloadKeys.generate("gone"))).seal([PLAIN])
    cipher = PayloadCipher(keys(PayloadKeys.generate("k1")))

    with pytest.raises(PayloadDecryptionError, match="'gone'"):
        cipher.open(sealed)


def test_an_altered_payload_does_not_open() -> None:
    cipher = PayloadCipher(keys(PayloadKeys.generate("k1")))
    (sealed,) = cipher.seal([PLAIN])
    flipped = bytes([sealed.data[-1] ^ 1])
    altered = Payload(metadata=dict(sealed.metadata), data=sealed.data[:-1] + flipped)

    with pytest.raises(PayloadDecryptionError, match="altered"):
        cipher.open([altered])


def test_a_payload_relabelled_to_another_key_id_does_not_open() -> None:
    secret = base64.b64encode(bytes(32)).decode()
    cipher = PayloadCipher(keys(f"a={secret},b={secret}"))
    (sealed,) = cipher.seal([PLAIN])
    relabelled = Payload(
        metadata={**dict(sealed.metadata), "encryption-key-id": b"b"}, data=sealed.data
    )

    with pytest.raises(PayloadDecryptionError):
        cipher.open([relabelled])


def test_plain_payloads_pass_through() -> None:
    cipher = PayloadCipher(keys(PayloadKeys.generate("k1")))

    assert cipher.open([PLAIN]) == [PLAIN]


def test_no_keys_is_no_encryption() -> None:
    assert PayloadKeys.parse("") is None
    assert PayloadKeys.parse(" , ") is None


@pytest.mark.parametrize(
    ("spec", "problem"),
    [
        ("k1", "entry 1 is not ID=BASE64"),
        ("bad id=AAAA", "entry 1 is not ID=BASE64"),
        ("k1=not*base64", "key 'k1' is not base64"),
        (f"k1={base64.b64encode(bytes(16)).decode()}", "key 'k1' has 16 bytes, not 32"),
        (
            f"k1={base64.b64encode(bytes(32)).decode()},k1={base64.b64encode(bytes(32)).decode()}",
            "key id 'k1' is listed twice",
        ),
    ],
)
def test_bad_keys_are_refused_naming_the_setting(spec: str, problem: str) -> None:
    with pytest.raises(InvalidRequestError, match=problem) as refused:
        PayloadKeys.parse(spec)

    assert refused.value.field == "FUNDSAGA_PAYLOAD_KEYS"
    assert base64.b64encode(bytes(32)).decode() not in str(refused.value)
