"""The structured :86: of an MT940 line, in the two shapes banks write it.

SWIFT code words (Rabobank, ABN AMRO, ING, Triodos): `/EREF/…/BENM//NAME/…/REMI/…/RTRN/AC04/`,
ING's `//` between words and `/REMI/USTD//text/`; a word may be given with no value.
German subfields (Deutsche Kreditwirtschaft): a three-digit business code, then `?00` posting
text, `?10` primanota, `?20`-`?29` and `?60`-`?63` purpose, `?30` bank, `?31` account, `?32`/`?33`
name, `?34` a key (of a return, its reason); the purpose holds SEPA keywords (`EREF+`, `KREF+`,
`MREF+`, `SVWZ+`, `ABWA+`, ...). Triodos's older `>20` subfields are free text to us: they
hold no reference.

Either is wrapped onto lines of 65 characters wherever the line is full, inside a word, a
value or a tag; the lines are joined again before anything is read.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_CODE_WORDS = (
    "ACCW", "ADDR", "BENM", "BIC", "BUSP", "CDTRREFTP", "CDTRREF", "CHGS", "CNTP", "CSID",
    "EREF", "EXCH", "IBAN", "ID", "INIT", "IREF", "ISDT", "KREF", "MARF", "NAME", "NRTX",
    "OCMT", "ORDP", "PREF", "PURP", "REMI", "RTRN", "RTYP", "SVCL", "TRCD", "TRTP", "ULTB",
    "ULTC", "ULTD",
)  # fmt: skip
_CODE_WORD = re.compile(r"/(?P<word>" + "|".join(_CODE_WORDS) + r")(?=/)")
_SUBFIELDS = re.compile(r"^[0-9]{3}\?[0-9]{2}")
_KEYWORDS = (
    "ABWA", "ABWE", "BIC", "COAM", "CRED", "DDAT", "DEBT", "EREF", "IBAN", "KREF", "MDAT",
    "MREF", "OAMT", "ORCR", "ORMR", "PURP", "SQTP", "SVWZ",
)  # fmt: skip
_KEYWORD = re.compile(r"(?P<word>" + "|".join(_KEYWORDS) + r")\+")
_PURPOSE = frozenset({f"2{n}" for n in range(10)} | {"60", "61", "62", "63"})
_NO_REFERENCE = frozenset({"NOTPROVIDED", "NONREF", "NONE"})
_REMITTANCE_FORM = re.compile(r"^(?:USTD|STRD)/+(?:CUR/+)?")
_NO_REASON = frozenset({"", "000"})


@dataclass(frozen=True, kw_only=True)
class StructuredDetails:
    """What a structured :86: states; None where it states nothing."""

    end_to_end_id: str | None
    remittance: str | None
    return_reason: str | None
    states_return: bool
    """Whether the :86: itself says the line is a return (/RTRN/); a German ?34 key is stated
    on other lines too, so it alone says nothing of the kind."""
    counterparty: str | None


def structured_details(details: str) -> StructuredDetails | None:
    """The fields of a structured :86:; None for free text, which states none of them."""
    text = details.replace("\r", "").replace("\n", "")
    if _CODE_WORD.match(text):
        return _code_words(text)
    if _SUBFIELDS.match(text):
        return _subfields(text)
    return None


def _code_words(text: str) -> StructuredDetails:
    found = list(_CODE_WORD.finditer(text))
    words: list[tuple[str, str]] = []
    for match, following in zip(found, [*found[1:], None], strict=True):
        end = len(text) if following is None else following.start()
        words.append((match["word"], text[match.end() + 1 : end]))
    first = {word: _trimmed(value) for word, value in reversed(words)}
    remittance = _REMITTANCE_FORM.sub("", first.get("REMI", ""))
    return StructuredDetails(
        end_to_end_id=_reference(first.get("EREF", "")),
        remittance=_trimmed(remittance) or None,
        return_reason=_reason(first.get("RTRN", "")),
        states_return=_reason(first.get("RTRN", "")) is not None,
        counterparty=_counterparty(words),
    )


def _counterparty(words: list[tuple[str, str]]) -> str | None:
    """ING's /CNTP/account/BIC/name/city/, else the first /NAME/ (under BENM, ORDP or alone)."""
    for word, value in words:
        if word == "CNTP":
            parts = value.split("/")
            return (parts[2].strip() or None) if len(parts) > 2 else None
    return next((_trimmed(value) or None for word, value in words if word == "NAME"), None)


def _subfields(text: str) -> StructuredDetails:
    pieces = re.split(r"\?([0-9]{2})", text[3:])
    fields: dict[str, str] = {}
    purpose: list[str] = []
    for code, value in zip(pieces[1::2], pieces[2::2], strict=True):
        if code in _PURPOSE:
            purpose.append(value)
        else:
            fields[code] = fields.get(code, "") + value
    keywords = _keywords(purpose)
    free = keywords.pop("", "")
    remittance = keywords.get("SVWZ", free if keywords else "".join(purpose))
    return StructuredDetails(
        end_to_end_id=_reference(keywords.get("EREF", "")),
        remittance=remittance.strip() or None,
        return_reason=_reason(fields.get("34", "")),
        states_return=False,
        counterparty=(fields.get("32", "") + fields.get("33", "")).strip() or None,
    )


def _keywords(purpose: list[str]) -> dict[str, str]:
    """The purpose's SEPA keywords and their values (the first of each); under "" the text
    before the first. A keyword starts a subfield or follows a space: `EREF+` inside a word or
    `EREF:` in the remittance text is no keyword."""
    joined, starts, at = "", set(), 0
    for piece in purpose:
        starts.add(at)
        joined += piece
        at += len(piece)
    found = [
        match
        for match in _KEYWORD.finditer(joined)
        if match.start() in starts or joined[match.start() - 1].isspace()
    ]
    if not found:
        return {}
    values = {"": joined[: found[0].start()]}
    for match, following in zip(found, [*found[1:], None], strict=True):
        end = len(joined) if following is None else following.start()
        values.setdefault(match["word"], joined[match.end() : end].strip())
    return values


def _trimmed(value: str) -> str:
    return value.strip().strip("/").strip()


def _reference(value: str) -> str | None:
    value = _trimmed(value)
    return None if value.upper() in _NO_REFERENCE or not value else value


def _reason(value: str) -> str | None:
    value = _trimmed(value)
    code = value.split("/")[0].split()[0] if value else ""
    return None if code in _NO_REASON else code
