"""Counts the statements of a bank file and their booked lines, without the importer: the
standard library only (no `sagas` code, no MT940 library), so that the importer's count of the
lines it accounted for is checked against one that shares none of its code.

- camt (052, 053, 054, any version): each `Rpt`, `Stmt` or `Ntfctn` is a statement; each `Ntry`
  in it that is booked (its `Sts`, or `Sts/Cd` from 001.07, is not PDNG, INFO or FUTR) a line.
- MT940: each `:20:` starts a statement; each `:61:` in it is a line (a `:61:` wrapped over two
  lines is read whole).
- CSV: the rows after the preamble and the header, read as the fixture's mapping says; one
  statement per currency when the currency is a column.

Run it on files to see what it counts: `python -m tests.reconcile.dialects.count FILE...`.
"""

from __future__ import annotations

import csv
import io
import re
import sys
import tomllib
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

_NOT_BOOKED = frozenset({"PDNG", "INFO", "FUTR"})
_CAMT_REPORTS = frozenset({"Rpt", "Stmt", "Ntfctn"})
_CAMT_OPENING = ("OPBD", "PRCD")
_CAMT_CLOSING = ("CLBD",)
_DEBIT_VALUES = ("debit", "D", "DBIT")
"""A CSV direction column's debit values when its mapping names none (as CsvMapping's)."""
_TAG = re.compile(r"^:(?P<tag>[0-9]{2}[A-Z]?|NS):(?P<text>.*)$")
_MT940_LINE = re.compile(
    r"^(?P<value>\d{6})(?:\d{4}|\s{4})?(?P<mark>R?[DC])(?P<funds>[A-Z])?(?P<amount>\d[\d,]*)"
)
_MT940_BALANCE = re.compile(r"^(?P<mark>[DC])\d{6}(?P<currency>[A-Z]{3})(?P<amount>\d[\d,]*)")


@dataclass(frozen=True, kw_only=True)
class Balance:
    """A balance as the file states it: signed (a debit balance below zero), in its currency."""

    amount: Decimal
    currency: str


@dataclass(kw_only=True)
class Counted:
    """One statement of a file, as counted here."""

    statement: str
    """Its id as the file states it (camt `Id`, MT940 `:20:` and `:28C:`, CSV its currency)."""
    currency: str
    lines: int = 0
    total: Decimal = Decimal(0)
    """Credits minus debits."""
    zero: int = 0
    """Lines of 0.00."""
    opening: Balance | None = None
    closing: Balance | None = None

    def add(self, amount: Decimal, *, debit: bool) -> None:
        self.lines += 1
        self.total += -amount if debit else amount
        self.zero += 1 if amount == 0 else 0

    @property
    def balanced(self) -> bool | None:
        """Whether opening + lines = closing; None when the file states not both."""
        if self.opening is None or self.closing is None:
            return None
        if self.opening.currency != self.closing.currency:
            return False
        return self.opening.amount + self.total == self.closing.amount


def count_file(path: Path, mapping: Mapping[str, Any] | None = None) -> list[Counted]:
    """The statements of the file at `path`; a CSV is read with `mapping`."""
    data = path.read_bytes()
    if data.removeprefix(b"\xef\xbb\xbf").lstrip().startswith(b"<"):
        return count_camt(data)
    if mapping is not None:
        return count_csv(data, mapping)
    return count_mt940(data)


def gaps(statements: Sequence[Counted]) -> int:
    """How often a statement's opening is not the closing of the one before it in the file
    (of the same currency)."""
    last: dict[str, Balance] = {}
    found = 0
    for counted in statements:
        before = last.get(counted.currency)
        if before is not None and counted.opening is not None and counted.opening != before:
            found += 1
        if counted.closing is not None:
            last[counted.currency] = counted.closing
    return found


def count_camt(data: bytes) -> list[Counted]:
    root = ElementTree.fromstring(data)
    message = next(iter(root))
    return [_camt_report(report) for report in message if _local(report.tag) in _CAMT_REPORTS]


def _camt_report(report: ElementTree.Element) -> Counted:
    entries = [_amount(entry) for entry in _all(report, "Ntry") if _booked(entry)]
    balances = {_balance_type(element): _amount(element) for element in _all(report, "Bal")[::-1]}
    account = _child(_required(report, "Acct"), "Ccy")
    currencies = [account.text or ""] if account is not None else []
    currencies += [code for _, code, _ in entries] + [code for _, code, _ in balances.values()]
    ident = (_required(report, "Id").text or "").strip()
    counted = Counted(statement=ident, currency=currencies[0])
    for amount, _, debit in entries:
        counted.add(amount, debit=debit)
    counted.opening = _first(balances, _CAMT_OPENING)
    counted.closing = _first(balances, _CAMT_CLOSING)
    return counted


def _amount(element: ElementTree.Element) -> tuple[Decimal, str, bool]:
    """(amount, currency, whether a debit) of an Ntry or a Bal."""
    amount = _required(element, "Amt")
    debit = (_required(element, "CdtDbtInd").text or "").strip() == "DBIT"
    return Decimal((amount.text or "").strip()), amount.get("Ccy", ""), debit


def _first(
    balances: Mapping[str, tuple[Decimal, str, bool]], types: Sequence[str]
) -> Balance | None:
    """The first of `types` the statement states, signed."""
    for kind in types:
        if kind in balances:
            amount, code, debit = balances[kind]
            return Balance(amount=-amount if debit else amount, currency=code)
    return None


def _balance_type(element: ElementTree.Element) -> str:
    code = next(e for e in element.iter() if _local(e.tag) in {"Cd", "Prtry"})
    return (code.text or "").strip()


def _booked(entry: ElementTree.Element) -> bool:
    status = _child(entry, "Sts")
    if status is None:
        return True
    code = _child(status, "Cd")
    text = (code.text if code is not None else status.text) or ""
    return text.strip() not in _NOT_BOOKED


def _local(tag: str) -> str:
    return tag.rpartition("}")[2]


def _child(parent: ElementTree.Element, name: str) -> ElementTree.Element | None:
    return next((child for child in parent if _local(child.tag) == name), None)


def _all(parent: ElementTree.Element, name: str) -> list[ElementTree.Element]:
    return [child for child in parent if _local(child.tag) == name]


def _required(parent: ElementTree.Element, name: str) -> ElementTree.Element:
    found = _child(parent, name)
    if found is None:
        raise ValueError(f"{_local(parent.tag)} has no {name}")
    return found


def count_mt940(data: bytes) -> list[Counted]:
    # Latin-1 reads every byte: banks write MT940 in their own code page, and only ASCII counts.
    statements: list[Counted] = []
    for tag, text in _mt940_fields(data.decode("latin-1")):
        if tag == "20":
            statements.append(Counted(statement=text.strip(), currency=""))
        elif tag in {"28", "28C"}:
            statements[-1].statement += f"/{text.strip()}"
        elif tag in {"60F", "60M"}:
            statements[-1].opening = _mt940_balance(text)
            statements[-1].currency = statements[-1].opening.currency
        elif tag == "61":
            found = _MT940_LINE.match(text.replace("\n", ""))
            assert found is not None, f":61: {text!r} is no statement line"
            amount = Decimal(found["amount"].replace(",", "."))
            # RD reverses a debit (money back in), RC a credit.
            statements[-1].add(amount, debit=found["mark"] in {"D", "RC"})
        elif tag in {"62F", "62M"}:
            statements[-1].closing = _mt940_balance(text)
    return statements


def _mt940_fields(text: str) -> Iterator[tuple[str, str]]:
    """(tag, text) of each field; a field's text runs on over the lines up to the next tag."""
    tag, lines = "", list[str]()
    for line in text.replace("\r\n", "\n").split("\n"):
        found = _TAG.match(line)
        if found is None:
            lines.append(line)
            continue
        if tag:
            yield tag, "\n".join(lines)
        tag, lines = found["tag"], [found["text"]]
    if tag:
        yield tag, "\n".join(lines)


def _mt940_balance(text: str) -> Balance:
    found = _MT940_BALANCE.match(text)
    assert found is not None, f"{text!r} is no MT940 balance"
    value = Decimal(found["amount"].replace(",", "."))
    return Balance(amount=-value if found["mark"] == "D" else value, currency=found["currency"])


def count_csv(data: bytes, mapping: Mapping[str, Any]) -> list[Counted]:
    lines = data.decode("utf-8-sig").splitlines(keepends=True)
    table = "".join(lines[int(mapping.get("preamble_lines", 0)) :])
    rows = csv.reader(io.StringIO(table, newline=""), delimiter=mapping.get("delimiter", ","))
    header, *body = list(rows)
    statements: dict[str, Counted] = {}
    for cells in body:
        row = dict(zip(header, cells, strict=True))
        currency = mapping.get("currency") or row[mapping["currency_column"]]
        counted = statements.setdefault(currency, Counted(statement=currency, currency=currency))
        amount, debit = _csv_amount(row, mapping)
        counted.add(amount, debit=debit)
    return list(statements.values())


def _csv_amount(row: Mapping[str, str], mapping: Mapping[str, Any]) -> tuple[Decimal, bool]:
    text = row[mapping["amount_column"]].strip()
    thousands = mapping.get("thousands_separator")
    if thousands:
        text = text.replace(thousands, "")
    text = text.replace(mapping.get("decimal_separator", "."), ".")
    direction = mapping.get("direction_column")
    if direction is None:
        return abs(Decimal(text)), text.startswith("-")
    return Decimal(text), row[direction] in mapping.get("debit_values", _DEBIT_VALUES)


def main(paths: Sequence[str]) -> None:
    """Print what each file holds; a CSV is read with its mapping in manifest.toml."""
    with (Path(__file__).parent / "manifest.toml").open("rb") as stream:
        mappings = {
            entry["file"]: entry.get("mapping") for entry in tomllib.load(stream)["fixture"]
        }
    for name in paths:
        path = Path(name)
        for counted in count_file(path, mappings.get(path.name)):
            print(
                f"{path.name}\t{counted.statement}\t{counted.lines} lines\t"
                f"{counted.total:+} {counted.currency}\tbalanced: {counted.balanced}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
