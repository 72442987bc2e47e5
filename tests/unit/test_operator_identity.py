"""Who an operator action is by comes from configuration or the operating system, never from a
flag: FUNDSAGA_OPERATOR, else the OS user."""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import pytest

from sagas import InvalidRequestError, load_settings
from sagas.client import FundsagaClient
from sagas.foundations import os_user

OS_USER_VARIABLES = ("LOGNAME", "USER", "LNAME", "USERNAME")


@pytest.fixture(autouse=True)
def os_user_cy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.chdir(tmp_path)  # no .env
    monkeypatch.delenv("FUNDSAGA_OPERATOR", raising=False)
    for name in OS_USER_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LOGNAME", "cy")


def no_such_user(uid: int) -> Any:
    raise KeyError(uid)


def acting_as() -> str:
    client = FundsagaClient.configured(cast(Any, None), load_settings(), None)
    return client.saga("transfer", "k").acting_as


def test_the_configured_operator_acts(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNDSAGA_OPERATOR", "ana")

    assert acting_as() == "ana"


def test_without_a_configured_operator_the_os_user_acts() -> None:
    assert os_user() == "cy"
    assert acting_as() == "cy"


def test_a_blank_configured_operator_is_the_os_user(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FUNDSAGA_OPERATOR", "  ")

    assert acting_as() == "cy"


def test_an_operator_given_to_the_client_acts() -> None:
    client = FundsagaClient(cast(Any, None), "queue", operator="bo")

    assert client.saga("transfer", "k").acting_as == "bo"


def test_no_os_user_and_none_configured_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("LOGNAME")
    monkeypatch.setattr("pwd.getpwuid", no_such_user)

    with pytest.raises(InvalidRequestError, match="FUNDSAGA_OPERATOR"):
        os_user()
