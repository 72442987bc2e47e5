from __future__ import annotations

from pathlib import Path

import pytest

from sagas import InvalidRequestError
from sagas.audit import open_audit_store
from sagas.audit._directory import DirectoryAuditStore
from sagas.audit._table import TableAuditStore
from tests.fixtures_audit import TEST_KEYS


@pytest.mark.parametrize(
    ("spec", "backend"),
    [
        ("dir:.fundsaga/audit", DirectoryAuditStore),
        ("db:sqlite:///audit.db", TableAuditStore),
        ("sqlite:///audit.db", TableAuditStore),
        ("db:postgresql://postgres@127.0.0.1/fundsaga", TableAuditStore),
        ("postgresql+psycopg://postgres@127.0.0.1/fundsaga", TableAuditStore),
    ],
)
def test_the_spec_chooses_the_backend(spec: str, backend: type) -> None:
    assert isinstance(open_audit_store(spec, TEST_KEYS), backend)


def test_opening_touches_nothing(tmp_path: Path) -> None:
    open_audit_store(f"dir:{tmp_path / 'audit'}", TEST_KEYS)
    open_audit_store(f"sqlite:///{tmp_path / 'db' / 'audit.db'}", TEST_KEYS)

    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    "spec", ["", "dir:", "db:", "audit", "mysql://root@localhost/audit", "file:/tmp/x"]
)
def test_a_bad_spec_names_the_setting(spec: str) -> None:
    with pytest.raises(InvalidRequestError) as raised:
        open_audit_store(spec, TEST_KEYS)

    assert raised.value.field == "FUNDSAGA_AUDIT_STORE"
