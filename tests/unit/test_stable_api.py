"""The public API is the list in docs/public-api.md: the code and the list agree name for name."""

from __future__ import annotations

import importlib
import re
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LISTED = re.compile(r"^## `(?P<module>[\w.]+)`.*?```text\n(?P<names>.*?)```", re.M | re.S)


def listed_names() -> dict[str, set[str]]:
    text = (ROOT / "docs" / "public-api.md").read_text(encoding="utf-8")
    return {found["module"]: set(found["names"].split()) for found in LISTED.finditer(text)}


def test_the_list_names_the_client_definitions_kit_and_errors() -> None:
    assert set(listed_names()) == {"sagas", "sagas.client", "sagas.testing"}


@pytest.mark.parametrize("module", sorted(listed_names()))
def test_every_listed_name_is_there_and_nothing_else_is_public(module: str) -> None:
    package = importlib.import_module(module)
    listed = listed_names()[module]

    assert {name for name in listed if not hasattr(package, name)} == set()
    assert set(package.__all__) == listed


def test_a_name_of_the_split_package_warns_and_names_its_new_home() -> None:
    old = importlib.import_module("sagas.app")

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        client_class = old.FundsagaClient

    from sagas.client import FundsagaClient

    assert client_class is FundsagaClient
    assert [w.category for w in caught] == [DeprecationWarning]
    assert "sagas.client.FundsagaClient" in str(caught[0].message)
    assert "0.3.0" in str(caught[0].message)


def test_a_name_the_split_package_never_had_is_an_attribute_error() -> None:
    old = importlib.import_module("sagas.app")

    with pytest.raises(AttributeError, match="no_such_name"):
        _ = old.no_such_name
