"""The worker's check of an operator's access token, as an attacker would try it: forged,
expired, for another audience, without the role, and one person under two spellings."""

from __future__ import annotations

import time
from pathlib import Path

import jwt
import pytest

from sagas.client import DevIdentityProvider
from sagas.engine import OperatorRole, OperatorTokenCheck, ProofCheck, VerifiedOperator
from sagas.foundations import OperatorRefusedError


@pytest.fixture
def provider(tmp_path: Path) -> DevIdentityProvider:
    return DevIdentityProvider(tmp_path / "idp")


def claims_of(token: str) -> dict[str, object]:
    claims: dict[str, object] = jwt.decode(token, options={"verify_signature": False})
    return claims


def verify(check: OperatorTokenCheck, token: str, role: OperatorRole) -> VerifiedOperator:
    return check.verify(ProofCheck(proof=token, role=role))


def test_a_token_of_the_trusted_provider_is_verified(provider: DevIdentityProvider) -> None:
    operator = verify(provider.check(), provider.mint("ana"), OperatorRole.APPROVER)

    assert (operator.issuer, operator.subject, operator.name) == ("fundsaga-dev", "ana", "ana")
    assert set(operator.roles) == {OperatorRole.OPERATOR, OperatorRole.APPROVER}
    assert len(operator.token_sha256) == 64


def test_a_token_signed_by_another_key_is_refused(
    provider: DevIdentityProvider, tmp_path: Path
) -> None:
    forger = DevIdentityProvider(tmp_path / "forger")

    with pytest.raises(OperatorRefusedError, match="refused"):
        verify(provider.check(), forger.mint("ana"), OperatorRole.OPERATOR)


def test_a_token_under_the_trusted_key_id_but_another_key_is_refused(
    provider: DevIdentityProvider, tmp_path: Path
) -> None:
    forger = DevIdentityProvider(tmp_path / "forger")
    kid = jwt.get_unverified_header(provider.mint("x"))["kid"]
    forger_key = forger.key_path.read_bytes()  # the attacker's own key, the trusted key's id
    forged = jwt.encode(claims_of(forger.mint("ana")), forger_key, "ES256", {"kid": kid})

    with pytest.raises(OperatorRefusedError, match="Signature verification failed"):
        verify(provider.check(), forged, OperatorRole.OPERATOR)


def test_an_unsigned_token_is_refused(provider: DevIdentityProvider) -> None:
    claims = jwt.decode(provider.mint("ana"), options={"verify_signature": False})
    unsigned = jwt.encode(claims, "", algorithm="none")

    with pytest.raises(OperatorRefusedError):
        verify(provider.check(), unsigned, OperatorRole.OPERATOR)


@pytest.mark.parametrize(
    ("claim", "value", "why"),
    [
        ("exp", int(time.time()) - 120, "expired"),
        ("aud", "another-service", "audience"),
        ("iss", "https://idp.example", "issuer"),
    ],
    ids=["expired", "another-audience", "another-issuer"],
)
def test_an_expired_or_foreign_token_is_refused(
    provider: DevIdentityProvider, claim: str, value: object, why: str
) -> None:
    token = provider.sign(claims_of(provider.mint("ana")) | {claim: value})

    with pytest.raises(OperatorRefusedError, match=f"(?i){why}"):
        verify(provider.check(), token, OperatorRole.OPERATOR)


def test_an_operator_without_the_approver_role_cannot_approve(
    provider: DevIdentityProvider,
) -> None:
    token = provider.mint("ana", [OperatorRole.OPERATOR])

    assert verify(provider.check(), token, OperatorRole.OPERATOR).name == "ana"
    with pytest.raises(OperatorRefusedError, match="lacks the 'approver' role"):
        verify(provider.check(), token, OperatorRole.APPROVER)


@pytest.mark.parametrize("spelling", ["ana\u200b", "Ana", "\uff41\uff4e\uff41", " ana"])
def test_two_spellings_of_one_name_are_one_principal(
    provider: DevIdentityProvider, spelling: str
) -> None:
    check = provider.check()
    ana = verify(check, provider.mint("ana"), OperatorRole.OPERATOR)
    other = verify(check, provider.mint(spelling), OperatorRole.APPROVER)

    assert ana.same_principal(other)
    assert not ana.same_principal(verify(check, provider.mint("bob"), OperatorRole.APPROVER))
