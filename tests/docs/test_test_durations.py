"""`make test`'s duration is measured in one place, the README's Tests table; the other docs refer
to it. (CHANGELOG.md keeps each release's history and is not read.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
THE_PLACE = "| `make test` |"
"""The README's Tests row: the one line that may give the figure."""
MAKE_TEST = re.compile(r"make test(?![-\w])")
DURATION = re.compile(r"\b\d+(?:[.,]\d+)?\s?(?:h|min|s|ms|hours?|minutes?|seconds?)\b")


def sentences(text: str) -> Iterator[str]:
    """A code block's lines and a table's rows one by one; prose by the sentence."""
    in_code = False
    paragraph: list[str] = []
    for line in [*text.splitlines(), ""]:
        if line.startswith("```"):
            in_code = not in_code
        if in_code or line.startswith("|") or not line.strip() or line.startswith("- "):
            yield from re.split(r"(?<=[.;])\s+", " ".join(paragraph))
            paragraph = []
        if in_code or line.startswith("|"):
            yield line
        elif line.strip():
            paragraph.append(line.strip())


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: path.name)
def test_no_make_test_duration_outside_the_readme_tests_table(doc: Path) -> None:
    figures = [
        sentence
        for sentence in sentences(doc.read_text(encoding="utf-8"))
        if MAKE_TEST.search(sentence) and DURATION.search(sentence)
    ]

    allowed = [THE_PLACE] if doc.name == "README.md" else []
    assert [s for s in figures if not s.startswith(THE_PLACE)] == []
    assert [s[: len(THE_PLACE)] for s in figures] == allowed
