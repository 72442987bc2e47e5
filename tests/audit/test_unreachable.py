"""An unreachable store raises a TransientError, so the audit activity retries."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from sagas import TransientError
from sagas.audit import AuditStore, open_audit_store
from tests.fixtures_audit import TEST_KEYS

CALLS: dict[str, Callable[[AuditStore], object]] = {
    "append": lambda s: s.append(kind="terminal", saga_id="s", dedupe_key="k", payload={}),
    "find": lambda s: s.find("k"),
    "records": lambda s: s.records(),
    "head": lambda s: s.head(),
    "verify": lambda s: s.verify(),
}


def unreachable_specs(tmp_path: Path) -> dict[str, str]:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a regular file where the store's parent should be")
    return {
        "dir": f"dir:{blocker / 'audit'}",
        "sqlite": f"sqlite:///{blocker / 'audit.db'}",
        "postgres": "postgresql://postgres@127.0.0.1:1/fundsaga?connect_timeout=2",
    }


@pytest.mark.parametrize("backend", ["dir", "sqlite", "postgres"])
@pytest.mark.parametrize("call", sorted(CALLS))
def test_an_unreachable_store_raises_a_transient_error(
    tmp_path: Path, backend: str, call: str
) -> None:
    store = open_audit_store(unreachable_specs(tmp_path)[backend], TEST_KEYS)

    with pytest.raises(TransientError):
        CALLS[call](store)


def test_a_store_that_comes_back_takes_the_record_once(tmp_path: Path) -> None:
    spec = unreachable_specs(tmp_path)["dir"]
    store = open_audit_store(spec, TEST_KEYS)
    for _ in range(3):
        with pytest.raises(TransientError):
            CALLS["append"](store)

    (tmp_path / "not-a-directory").unlink()
    for _ in range(3):
        CALLS["append"](store)

    assert [r.dedupe_key for r in store.records()] == ["k"]
