"""The lint rule behind `make lint`: a package's private modules are its own."""

from __future__ import annotations

import pytest

from tooling.lint.private_modules import may_import, private_owner


@pytest.mark.parametrize(
    ("module", "owner"),
    [
        ("sagas.ledger._journal", "sagas.ledger"),
        ("sagas.engine._runtime", "sagas.engine"),
        ("sagas.ledger", None),
        ("tooling.bench.__main__", None),
    ],
)
def test_the_owner_of_a_private_module_is_the_package_above_it(
    module: str, owner: str | None
) -> None:
    assert private_owner(module) == owner


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("sagas.ledger._ledger", "sagas.ledger._journal"),
        ("sagas.ledger", "sagas.ledger._journal"),
        ("sagas.audit._table", "sagas.foundations"),
        ("activities.transfer", "sagas.ledger"),
    ],
)
def test_a_package_may_import_its_own_private_modules_and_public_names(
    importer: str, imported: str
) -> None:
    assert may_import(importer, imported)


@pytest.mark.parametrize(
    ("importer", "imported"),
    [
        ("sagas.audit._table", "sagas.ledger._models"),
        ("activities.audit", "sagas.engine._step_guard"),
        ("sagas.client._client", "sagas.engine._workflow_base"),
        ("tooling.chaos.worker", "sagas.worker._worker"),
    ],
)
def test_no_module_imports_another_package_s_private_module(importer: str, imported: str) -> None:
    assert not may_import(importer, imported)
