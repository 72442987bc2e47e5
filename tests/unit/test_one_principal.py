"""Maker and checker as the saga compares them: one (issuer, subject) is one person, and so is
any other whose shown name (preferred_username, else subject) a person could take for theirs."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from sagas.engine import OperatorRole, VerifiedOperator


def operator(subject: str, name: str | None = None, issuer: str = "idp") -> VerifiedOperator:
    return VerifiedOperator(
        issuer=issuer,
        subject=subject,
        name=name or subject,
        roles=[OperatorRole.OPERATOR, OperatorRole.APPROVER],
        token_sha256="0" * 64,
        expires_at=datetime(2026, 1, 1, tzinfo=UTC),
    )


ANA = operator("3f2c-ana", "ana")


@pytest.mark.parametrize(
    "checker",
    [
        operator("3f2c-ana", "someone else"),  # the same (issuer, subject), whatever the name
        operator("9b1e-x", "\u0430na"),  # a Cyrillic a
        operator("9b1e-x", "\u03b1na"),  # a Greek alpha
        operator("9b1e-x", "\uff41\uff4e\uff41"),  # full-width
        operator("9b1e-x", "an\u200ba"),  # zero-width space
        operator("ana"),  # a subject that reads as the other's name
        operator("9b1e-x", "ana", issuer="another-idp"),  # one name, two identity providers
    ],
)
def test_a_look_alike_or_the_same_subject_is_the_same_principal(checker: VerifiedOperator) -> None:
    assert ANA.same_principal(checker)
    assert checker.same_principal(ANA)


def test_rn_is_taken_for_m() -> None:
    assert operator("1", "mila").same_principal(operator("2", "rnila"))


@pytest.mark.parametrize("checker", [operator("9b1e-bob", "bob"), operator("7a0d-ann", "ann")])
def test_distinct_subjects_with_distinct_names_are_two_principals(
    checker: VerifiedOperator,
) -> None:
    assert not ANA.same_principal(checker)
