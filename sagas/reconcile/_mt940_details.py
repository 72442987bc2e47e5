"""The structured subfields of an MT940 :86: (`/EREF/…/RTRN/AC04/`), as Dutch and German
banks write them: what a line's end-to-end id and a return's reason are read from when the
:61: customer reference (16 characters at most) cannot hold them."""

from __future__ import annotations

import re

_SUBFIELD = re.compile(r"/(?P<tag>[A-Z]{2,4})/(?P<value>.*?)(?=/[A-Z]{2,4}/|$)")
_NOT_PROVIDED = frozenset({"", "NOTPROVIDED", "NONREF"})


def subfields(details: str) -> dict[str, str]:
    """Tag: value of a structured :86: (the first of each tag); {} when it is free text. A
    value wrapped onto the next line is joined again."""
    text = details.replace("\r", "").replace("\n", "")
    if not text.startswith("/"):
        return {}
    found: dict[str, str] = {}
    for match in _SUBFIELD.finditer(text):
        found.setdefault(match["tag"], match["value"].strip())
    return found


def end_to_end_id(details: str) -> str | None:
    """The /EREF/ subfield, when it names a reference."""
    value = subfields(details).get("EREF", "")
    return None if value.upper() in _NOT_PROVIDED else value


def return_reason(details: str) -> str | None:
    """The reason code of /RTRN/, when it states one."""
    value = subfields(details).get("RTRN", "")
    return value[:4] or None
