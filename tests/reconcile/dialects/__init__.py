"""Statement files modelled on real banks' dialects, written for these tests (manifest.toml says
what each models and what the importer must do with it), and count.py, which counts their lines
without the importer."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FOLDER = Path(__file__).parent


@dataclass(frozen=True, kw_only=True)
class Fixture:
    """One file of the folder, as manifest.toml describes it."""

    file: str
    format: str
    dialect: str
    statements: int
    lines: tuple[int, ...]
    """Booked lines per statement, in the file's order."""
    expect: str
    """accounted, unbalanced or refused (manifest.toml says what each means)."""
    end_to_end_ids: tuple[str, ...]
    zero_amount: int = 0
    refused_field: str | None = None
    mapping: dict[str, Any] | None = field(default=None, compare=False)

    @property
    def path(self) -> Path:
        return FOLDER / self.file


def fixtures() -> list[Fixture]:
    """Every fixture of manifest.toml, in its order."""
    with (FOLDER / "manifest.toml").open("rb") as stream:
        entries: list[dict[str, Any]] = tomllib.load(stream)["fixture"]
    return [
        Fixture(
            **{
                **entry,
                "lines": tuple(entry["lines"]),
                "end_to_end_ids": tuple(entry["end_to_end_ids"]),
            }
        )
        for entry in entries
    ]
