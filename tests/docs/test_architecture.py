"""docs/architecture.md draws the layers that import-linter enforces, in the same order."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def contracts() -> list[dict[str, Any]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    found: list[dict[str, Any]] = config["tool"]["importlinter"]["contracts"]
    return found


def drawn_layers() -> list[str]:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    match = re.search(r"<!-- layers -->\n```text\n(.*?)\n```", text, re.DOTALL)
    assert match is not None, "no ```text block after <!-- layers -->"
    rows = [line for line in match.group(1).splitlines() if line.strip() not in ("", "│")]
    return [re.split(r"\s{2,}", row.strip())[0] for row in rows]


def test_the_drawn_layers_are_the_contract() -> None:
    (layers,) = [c for c in contracts() if c["type"] == "layers"]

    assert drawn_layers() == layers["layers"]


def test_every_shipped_package_is_in_a_layer() -> None:
    (layers,) = [c for c in contracts() if c["type"] == "layers"]
    named = {name.strip() for layer in layers["layers"] for name in str(layer).split("|")}
    subpackages = {f"sagas.{path.parent.name}" for path in (ROOT / "sagas").glob("*/__init__.py")}

    assert subpackages | {"workflows", "activities"} == named


def test_the_page_draws_the_layers_once_and_gives_each_package_its_paragraph() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    (layers,) = [c for c in contracts() if c["type"] == "layers"]
    packages = [name.strip() for layer in layers["layers"] for name in str(layer).split("|")]

    assert text.count("sagas.foundations  ") == 1, "the layer diagram is drawn more than once"
    assert [p for p in packages if f"**`{p}`**" not in text] == []


def test_the_page_counts_the_layers_the_contract_has() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    (layers,) = [c for c in contracts() if c["type"] == "layers"]
    words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    words += ["eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen"]

    assert f"code sits in {words[len(layers['layers']) - 1]} layers" in text
