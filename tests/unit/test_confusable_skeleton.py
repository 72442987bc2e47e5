"""Confusable skeletons as UTS #39 defines them, from Unicode's own data, and the names of two
operators compared by them: look-alikes are one principal, different names are two."""

from __future__ import annotations

import pytest

from sagas.foundations import CONFUSABLES_VERSION, confusable_skeleton, names_look_alike
from sagas.foundations._confusables_data import PROTOTYPES
from tooling.confusables import generated

CYRILLIC_A = "\u0430"
GREEK_ALPHA = "\u03b1"
ZERO_WIDTH_SPACE = "\u200b"
FULLWIDTH_ANA = "\uff41\uff4e\uff41"


@pytest.mark.parametrize(
    ("text", "skeleton"),
    [
        ("ana", "ana"),
        (f"{CYRILLIC_A}na", "ana"),
        (f"{GREEK_ALPHA}na", "ana"),
        ("m", "rn"),  # UTS #39's own example: m and rn look alike
        ("rn", "rn"),
        ("I", "l"),
        ("1", "l"),
        ("0", "O"),
        ("\u00e9", "e\u0301"),  # é: NFD first, then each code point through its prototype
        ("\U0001d41a", "a"),  # MATHEMATICAL BOLD SMALL A
    ],
)
def test_a_skeleton_maps_each_code_point_to_its_prototype(text: str, skeleton: str) -> None:
    assert confusable_skeleton(text) == skeleton


def test_the_data_is_unicodes_confusables_of_a_stated_version() -> None:
    mappings = PROTOTYPES.splitlines()

    assert CONFUSABLES_VERSION == "17.0.0"
    assert len(mappings) == 6565  # every MA line of confusables.txt 17.0.0
    assert "006D 0072 006E" in mappings
    assert f"{ord(CYRILLIC_A):04X} 0061" in mappings


def test_the_generator_keeps_the_version_and_the_mappings() -> None:
    source = (
        "\ufeff# confusables.txt\n# Date: 2025-07-22, 05:49:37 GMT\n# Version: 17.0.0\n#\n"
        "0430 ;\t0061 ;\tMA\t# ( \u0430 → a ) CYRILLIC SMALL LETTER A → LATIN SMALL LETTER A\t#\n\n"
        "006D ;\t0072 006E ;\tMA\t# ( m → rn ) ...\n"
    ).encode()

    module = generated(source)

    assert 'UNICODE_VERSION = "17.0.0"' in module
    assert "version 17.0.0\n(dated 2025-07-22, 05:49:37 GMT)" in module
    assert module.endswith('PROTOTYPES = """\\\n0430 0061\n006D 0072 006E\n"""\n')


def test_a_file_without_a_version_or_mappings_is_refused() -> None:
    with pytest.raises(SystemExit, match=r"not a confusables\.txt"):
        generated(b"# Version: 17.0.0\n")


@pytest.mark.parametrize(
    "look_alike",
    [
        f"{CYRILLIC_A}na",
        f"{GREEK_ALPHA}na",
        f"an{ZERO_WIDTH_SPACE}a",
        FULLWIDTH_ANA,
        "Ana",
        "\u0410na",  # a Cyrillic capital A
        " ana",
    ],
)
def test_a_look_alike_of_a_name_is_the_same_name(look_alike: str) -> None:
    assert names_look_alike("ana", look_alike)
    assert names_look_alike(look_alike, "ana")


def test_rn_looks_like_m() -> None:
    assert names_look_alike("mia", "rnia")
    assert names_look_alike("Ian", "lan")  # capital I and small l


@pytest.mark.parametrize(("first", "second"), [("ana", "bob"), ("ana", "anna"), ("mia", "nia")])
def test_different_names_are_different(first: str, second: str) -> None:
    assert not names_look_alike(first, second)
