"""The glossary's closed vocabularies are the code's enums: every member, and no other."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path

import pytest

from sagas import AuditKind, CompensationResult, FailureReason, OperatorDecision, Phase, SagaStatus
from sagas.engine import OperatorAct, OperatorRole
from sagas.reconcile import BreakKind, BreakStatus

ARCHITECTURE = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
VOCABULARIES: dict[str, type[StrEnum]] = {
    enum.__name__: enum
    for enum in (
        SagaStatus,
        Phase,
        FailureReason,
        CompensationResult,
        OperatorDecision,
        OperatorAct,
        OperatorRole,
        AuditKind,
        BreakKind,
        BreakStatus,
    )
}
MARKER = re.compile(r"^<!-- vocabulary:(\w+) -->$", re.MULTILINE)


def glossary() -> str:
    text = ARCHITECTURE.read_text(encoding="utf-8")
    return text[text.index("## Glossary") :]


def listed() -> dict[str, list[str]]:
    """Each vocabulary's members as the glossary lists them (`- `value`: meaning`), in order."""
    text = glossary()
    markers = list(MARKER.finditer(text))
    found: dict[str, list[str]] = {}
    for marker, following in zip(markers, [*markers[1:], None], strict=True):
        block = text[marker.end() : following.start() if following else len(text)]
        found[marker.group(1)] = re.findall(r"^- `([^`]+)`: \S", block, re.MULTILINE)
    return found


def test_the_glossary_lists_each_vocabulary_once_and_no_other() -> None:
    names = [m.group(1) for m in MARKER.finditer(glossary())]

    assert sorted(names) == sorted(VOCABULARIES)


@pytest.mark.parametrize("name", sorted(VOCABULARIES))
def test_every_member_is_listed_with_its_meaning_and_no_other(name: str) -> None:
    members = [member.value for member in VOCABULARIES[name]]

    assert listed().get(name) == members


def test_every_audit_kind_the_glossary_names_in_passing_exists() -> None:
    named = re.findall(r"audit kinds? `(\w+)`", glossary())

    assert named, "the glossary names no audit kind in passing"
    assert [kind for kind in named if kind not in set(AuditKind)] == []
