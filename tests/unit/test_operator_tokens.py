"""The worker's check of an operator's access token, as an attacker would try it: forged,
expired, for another audience, without the role, unbound, bound to another action, too
long-lived, without a token id, and one person under two spellings."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import jwt
import pytest

from sagas.client import DevIdentityProvider
from sagas.engine import (
    OperatorAct,
    OperatorBinding,
    OperatorRole,
    OperatorTokenCheck,
    ProofCheck,
    VerifiedOperator,
)
from sagas.foundations import OperatorRefusedError
from sagas.testing import assert_eventually

APPROVE_P1 = OperatorBinding(workflow_id="transfer-K1", action=OperatorAct.APPROVE, proposal="p1")


@pytest.fixture
def provider(tmp_path: Path) -> DevIdentityProvider:
    return DevIdentityProvider(tmp_path / "idp")


def claims_of(token: str) -> dict[str, object]:
    claims: dict[str, object] = jwt.decode(token, options={"verify_signature": False})
    return claims


def verify(
    check: OperatorTokenCheck,
    token: str,
    role: OperatorRole,
    binding: OperatorBinding = APPROVE_P1,
    at: datetime | None = None,
) -> VerifiedOperator:
    checked_at = at or datetime.now(UTC)
    return check.verify(ProofCheck(proof=token, role=role, binding=binding, checked_at=checked_at))


def bound(provider: DevIdentityProvider, name: str, *roles: OperatorRole) -> str:
    """A token for `name`, bound to approving p1 on transfer-K1."""
    return provider.mint(name, roles or (OperatorRole.OPERATOR, OperatorRole.APPROVER), APPROVE_P1)


def test_a_token_of_the_trusted_provider_is_verified(provider: DevIdentityProvider) -> None:
    operator = verify(provider.check(), bound(provider, "ana"), OperatorRole.APPROVER)

    assert (operator.issuer, operator.subject, operator.name) == ("fundsaga-dev", "ana", "ana")
    assert set(operator.roles) == {OperatorRole.OPERATOR, OperatorRole.APPROVER}
    assert len(operator.token_sha256) == 64


def test_a_token_signed_by_another_key_is_refused(
    provider: DevIdentityProvider, tmp_path: Path
) -> None:
    forger = DevIdentityProvider(tmp_path / "forger")

    with pytest.raises(OperatorRefusedError, match="refused"):
        verify(provider.check(), bound(forger, "ana"), OperatorRole.OPERATOR)


def test_a_token_under_the_trusted_key_id_but_another_key_is_refused(
    provider: DevIdentityProvider, tmp_path: Path
) -> None:
    forger = DevIdentityProvider(tmp_path / "forger")
    kid = jwt.get_unverified_header(provider.mint("x"))["kid"]
    forger_key = forger.key_path.read_bytes()  # the attacker's own key, the trusted key's id
    forged = jwt.encode(claims_of(bound(forger, "ana")), forger_key, "ES256", {"kid": kid})

    with pytest.raises(OperatorRefusedError, match="Signature verification failed"):
        verify(provider.check(), forged, OperatorRole.OPERATOR)


def test_an_unsigned_token_is_refused(provider: DevIdentityProvider) -> None:
    claims = jwt.decode(bound(provider, "ana"), options={"verify_signature": False})
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
    token = provider.sign(claims_of(bound(provider, "ana")) | {claim: value})

    with pytest.raises(OperatorRefusedError, match=f"(?i){why}"):
        verify(provider.check(), token, OperatorRole.OPERATOR)


def test_an_operator_without_the_approver_role_cannot_approve(
    provider: DevIdentityProvider,
) -> None:
    token = bound(provider, "ana", OperatorRole.OPERATOR)

    assert verify(provider.check(), token, OperatorRole.OPERATOR).name == "ana"
    with pytest.raises(OperatorRefusedError, match="lacks the 'approver' role"):
        verify(provider.check(), token, OperatorRole.APPROVER)


@pytest.mark.parametrize("spelling", ["ana\u200b", "Ana", "\uff41\uff4e\uff41", " ana"])
def test_two_spellings_of_one_name_are_one_principal(
    provider: DevIdentityProvider, spelling: str
) -> None:
    check = provider.check()
    ana = verify(check, bound(provider, "ana"), OperatorRole.OPERATOR)
    other = verify(check, bound(provider, spelling), OperatorRole.APPROVER)

    assert ana.same_principal(other)
    assert not ana.same_principal(verify(check, bound(provider, "bob"), OperatorRole.APPROVER))


@pytest.mark.parametrize(
    "binding",
    [
        OperatorBinding(workflow_id="transfer-K2", action=OperatorAct.APPROVE, proposal="p1"),
        OperatorBinding(workflow_id="transfer-K1", action=OperatorAct.PROPOSE),
        OperatorBinding(workflow_id="transfer-K1", action=OperatorAct.APPROVE, proposal="p2"),
        OperatorBinding(workflow_id="recovery:transfer-K1", action=OperatorAct.APPROVE_RECOVERY),
    ],
    ids=["another-saga", "another-act", "another-proposal", "the-recovery"],
)
def test_a_token_bound_to_another_action_is_refused(
    provider: DevIdentityProvider, binding: OperatorBinding
) -> None:
    with pytest.raises(OperatorRefusedError, match="the token is bound to approve of proposal p1"):
        verify(provider.check(), bound(provider, "ana"), OperatorRole.APPROVER, binding)


@pytest.mark.parametrize(
    "details",
    [
        None,
        [],
        [{"type": "payment_initiation", "workflow_id": "transfer-K1"}],
        [APPROVE_P1.authorization_detail(), APPROVE_P1.authorization_detail()],
        "approve p1",
    ],
    ids=["no-claim", "empty", "foreign-type", "two-actions", "not-a-list"],
)
def test_a_token_bound_to_no_single_action_is_refused(
    provider: DevIdentityProvider, details: object
) -> None:
    claims = claims_of(bound(provider, "ana")) | {"authorization_details": details}
    if details is None:
        del claims["authorization_details"]

    with pytest.raises(OperatorRefusedError, match="bound to exactly one action"):
        verify(provider.check(), provider.sign(claims), OperatorRole.APPROVER)


def test_a_token_valid_until_2100_is_refused(provider: DevIdentityProvider) -> None:
    until_2100 = int(datetime(2100, 1, 1, tzinfo=UTC).timestamp())
    token = provider.sign(claims_of(bound(provider, "ana")) | {"exp": until_2100})

    with pytest.raises(OperatorRefusedError, match="longer than the 0:15:00 this worker accepts"):
        verify(provider.check(), token, OperatorRole.APPROVER)


def test_without_iat_the_lifetime_counts_from_now(provider: DevIdentityProvider) -> None:
    claims = claims_of(bound(provider, "ana"))
    del claims["iat"]
    check = provider.check()

    assert verify(
        check, provider.sign(claims | {"exp": int(time.time()) + 600}), OperatorRole.APPROVER
    )
    with pytest.raises(OperatorRefusedError, match="longer than"):
        verify(
            check, provider.sign(claims | {"exp": int(time.time()) + 3600}), OperatorRole.APPROVER
        )


def test_the_lifetime_ceiling_is_the_workers(provider: DevIdentityProvider) -> None:
    token = provider.mint("ana", binding=APPROVE_P1, lifetime=timedelta(minutes=10))

    assert verify(provider.check(), token, OperatorRole.APPROVER).name == "ana"
    with pytest.raises(OperatorRefusedError, match="longer than the 0:05:00"):
        verify(provider.check(timedelta(minutes=5)), token, OperatorRole.APPROVER)


@pytest.mark.parametrize("token_id", [None, "", 7, "x" * 201])
def test_a_token_without_a_usable_token_id_is_refused(
    provider: DevIdentityProvider, token_id: object
) -> None:
    claims = claims_of(bound(provider, "ana")) | {"jti": token_id}
    if token_id is None:
        del claims["jti"]

    with pytest.raises(OperatorRefusedError, match=r"no token id \(jti\)|JWT ID must be a string"):
        verify(provider.check(), provider.sign(claims), OperatorRole.APPROVER)


def test_expiry_is_judged_at_the_workflows_time_not_the_hosts(
    provider: DevIdentityProvider,
) -> None:
    token = bound(provider, "ana")
    check = provider.check()
    later = datetime.now(UTC) + timedelta(hours=1)

    assert verify(check, token, OperatorRole.APPROVER).name == "ana"
    with pytest.raises(OperatorRefusedError, match="expired"):
        verify(check, token, OperatorRole.APPROVER, at=later)


def test_a_key_the_worker_does_not_hold_is_refused_without_reading_the_jwks_then(
    provider: DevIdentityProvider, tmp_path: Path
) -> None:
    check = provider.check()
    provider.jwks_path.write_text("not json")  # what a read now would find
    forger = DevIdentityProvider(tmp_path / "forger")

    assert verify(check, bound(provider, "ana"), OperatorRole.APPROVER).name == "ana"
    with pytest.raises(OperatorRefusedError, match="no signing key"):
        verify(check, bound(forger, "ana"), OperatorRole.APPROVER)


async def test_a_rotated_key_is_read_in_the_background_then_accepted(
    provider: DevIdentityProvider, tmp_path: Path
) -> None:
    check = provider.check()
    rotated = DevIdentityProvider(tmp_path / "rotated")  # the provider's next signing key
    provider.jwks_path.write_text(rotated.jwks_path.read_text())
    token = bound(rotated, "ana")

    with pytest.raises(OperatorRefusedError, match="read again in the background"):
        verify(check, token, OperatorRole.APPROVER)

    def once_read() -> VerifiedOperator:
        try:
            return verify(check, token, OperatorRole.APPROVER)
        except OperatorRefusedError as refused:
            raise AssertionError(str(refused)) from refused

    assert (await assert_eventually(once_read)).name == "ana"
