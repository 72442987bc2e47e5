"""Who a client's operator actions are by, and the proof it sends: the access token in
FUNDSAGA_OPERATOR_TOKEN; else, where `fundsaga dev` made a development identity provider, a
token it mints for FUNDSAGA_OPERATOR (or the OS user); else none, and actions are refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

from sagas import InvalidRequestError, load_settings
from sagas.client import DevIdentityProvider, FundsagaClient
from sagas.engine import OperatorAct, OperatorBinding
from sagas.foundations import OperatorRefusedError, os_user

OS_USER_VARIABLES = ("LOGNAME", "USER", "LNAME", "USERNAME")
RETRY_K = OperatorBinding(workflow_id="transfer-k", action=OperatorAct.RETRY)


@pytest.fixture(autouse=True)
def os_user_cy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.setenv("FUNDSAGA_DEV_IDENTITY", str(tmp_path / "dev-identity"))
    for name in ("FUNDSAGA_OPERATOR", "FUNDSAGA_OPERATOR_TOKEN", *OS_USER_VARIABLES):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOGNAME", "cy")


def no_such_user(uid: int) -> Any:
    raise KeyError(uid)


def configured_client() -> FundsagaClient:
    return FundsagaClient.configured(cast(Any, None), load_settings(), None)


def test_the_configured_access_token_is_the_proof(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    token = DevIdentityProvider(tmp_path / "idp").mint("ana", binding=RETRY_K)
    monkeypatch.setenv("FUNDSAGA_OPERATOR", "bob")  # a typed name does not change the token's
    monkeypatch.setenv("FUNDSAGA_OPERATOR_TOKEN", token)

    saga = configured_client().saga("transfer", "k")

    assert saga.acting_as == "ana"
    assert saga.operator is not None
    assert saga.operator.token(RETRY_K) == token


def test_a_configured_token_bound_to_another_action_is_not_sent_and_says_what_to_request(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    token = DevIdentityProvider(tmp_path / "idp").mint("ana", binding=RETRY_K)
    monkeypatch.setenv("FUNDSAGA_OPERATOR_TOKEN", token)
    operator = configured_client().saga("transfer", "k").operator
    assert operator is not None
    approve = OperatorBinding(workflow_id="transfer-k", action=OperatorAct.APPROVE, proposal="p1")

    with pytest.raises(OperatorRefusedError) as refused:
        operator.token(approve)

    requested = json.loads(str(refused.value).split("authorization_details=", 1)[1])
    assert requested == [
        {
            "type": "fundsaga_operator_action",
            "workflow_id": "transfer-k",
            "action": "approve",
            "proposal": "p1",
        }
    ]


def test_on_a_dev_stack_the_configured_operator_signs_in(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    provider = DevIdentityProvider(tmp_path / "dev-identity")
    monkeypatch.setenv("FUNDSAGA_OPERATOR", "ana")

    operator = configured_client().saga("transfer", "k").operator

    assert operator is not None
    assert operator.name == "ana"
    claims = provider.check().tokens.claims(operator.token(RETRY_K))
    assert (claims["sub"], claims["iss"]) == ("ana", "fundsaga-dev")


def test_on_a_dev_stack_without_a_configured_operator_the_os_user_signs_in(
    tmp_path: Path,
) -> None:
    DevIdentityProvider(tmp_path / "dev-identity")

    assert configured_client().saga("transfer", "k").acting_as == "cy"


async def test_without_a_token_or_a_dev_identity_an_operator_action_is_refused() -> None:
    saga = configured_client().saga("transfer", "k")

    with pytest.raises(OperatorRefusedError, match="FUNDSAGA_OPERATOR_TOKEN") as refused:
        await saga.retry("fixed")

    requested = json.loads(str(refused.value).split("authorization_details=")[1].split(" (or")[0])
    assert requested == [RETRY_K.authorization_detail()]


def test_the_dev_signing_key_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    provider = DevIdentityProvider(tmp_path / "dev-identity")

    assert provider.key_path.stat().st_mode & 0o077 == 0
    (public,) = json.loads(provider.jwks_path.read_text())["keys"]
    assert "d" not in public  # the private part of an EC key


def test_no_os_user_and_none_configured_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOGNAME")
    monkeypatch.setattr("pwd.getpwuid", no_such_user)

    with pytest.raises(InvalidRequestError, match="FUNDSAGA_OPERATOR"):
        os_user()
