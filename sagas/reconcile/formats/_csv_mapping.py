"""Which column of a rail's CSV holds which field of a statement line, declared in a file."""

from __future__ import annotations

import codecs
import json
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from sagas.foundations import InvalidRequestError, currency, refuse_duplicate_keys

_REQUIRED = ("booking_date_column",)
_LISTS = frozenset({"debit_values", "credit_values"})
_INTEGERS = frozenset({"preamble_lines"})
_THOUSANDS = ("", ".", ",", " ", "'")


@dataclass(frozen=True, kw_only=True)
class CsvMapping:
    """How to read a CSV statement: the header name of each field's column, and the values
    the file does not carry. A file (`CsvMapping.from_file`) names the same fields, e.g. TOML:

        bank_reference_column = "Transaction ID"
        amount_column = "Amount"
        booking_date_column = "Booked on"
        date_format = "%d.%m.%Y"
        account = "NL91ABNA0417164300"
        currency = "EUR"

    The amount is read one of three ways: a signed `amount_column` (negative is a debit); an
    unsigned `amount_column` and a `direction_column`; or a `debit_amount_column` and a
    `credit_amount_column`, one of them filled on each row.
    """

    booking_date_column: str
    amount_column: str | None = None
    """Signed without a `direction_column` (`-12.50`, `12,50-`, `(12.50)`: a debit; unsigned or
    `+`: a credit); with one, unsigned. None: `debit_amount_column` and `credit_amount_column`."""
    debit_amount_column: str | None = None
    """Money out, as a separate column ("Paid out", "Debit"); given with `credit_amount_column`,
    never with `amount_column`. On each row one of the two holds the amount, the other is empty
    or zero. A sign, if any, must agree with the column."""
    credit_amount_column: str | None = None
    """Money in ("Paid in", "Credit"); see `debit_amount_column`."""
    bank_reference_column: str | None = None
    """None: the export has no reference of the bank's (many do not); its rows are then told
    apart by their content and how often it recurs (docs/reconciliation.md)."""
    end_to_end_id_column: str | None = None
    direction_column: str | None = None
    """Whose cells are one of `debit_values` or `credit_values` ("Af Bij": Af, Bij)."""
    value_date_column: str | None = None
    """None: the value date is the booking date."""
    currency_column: str | None = None
    """Rows may hold several currencies (and, with `account_column`, several accounts): the
    file is then one statement per account and currency (`read_csv_statements`)."""
    kind_column: str | None = None
    """Cells payout, return, fee, interest or other (any case); None: every line is other."""
    fee_column: str | None = None
    description_column: str | None = None
    account_column: str | None = None
    account: str | None = None
    """The account when no column holds it (give one of the two)."""
    currency: str | None = None
    """The currency when no column holds it (give one of the two)."""
    statement_id: str | None = None
    """None: derived from the file's bytes, so the same file always has the same id. A file of
    several accounts or currencies has one statement for each: `<id>/<account>/<currency>`."""
    date_format: str = "%Y-%m-%d"
    """A `datetime.strptime` format, for both dates."""
    delimiter: str = ","
    decimal_separator: str = "."
    thousands_separator: str = ""
    """One of "", ".", ",", " " (a no-break space too) and "'", other than the decimal
    separator; a cell's groups must then be whole (`1.234,56`, never `1.23,56`)."""
    preamble_lines: int = 0
    """Lines before the header that are not part of the table (an export's account number,
    period and balance); the header is line `preamble_lines + 1` and rows are numbered from the
    file's first line."""
    encoding: str = "utf-8"
    """The file's text encoding (many German exports are "iso-8859-1" or "cp1252"); a UTF-8
    byte-order mark is skipped."""
    debit_values: tuple[str, ...] = ("debit", "D", "DBIT")
    credit_values: tuple[str, ...] = ("credit", "C", "CRDT")

    def __post_init__(self) -> None:
        self._check()

    def _check(self) -> None:
        for name in _REQUIRED:
            if not getattr(self, name):
                raise InvalidRequestError(name, "must name a column")
        self._check_amount()
        self._one_of("account")
        self._one_of("currency")
        if self.currency is not None:
            currency(self.currency)
        if len(self.delimiter) != 1:
            raise InvalidRequestError("delimiter", "must be one character")
        if self.decimal_separator not in {".", ","}:
            raise InvalidRequestError("decimal_separator", "must be '.' or ','")
        if self.thousands_separator not in _THOUSANDS:
            allowed = ", ".join(repr(s) for s in _THOUSANDS)
            raise InvalidRequestError("thousands_separator", f"must be one of {allowed}")
        if self.thousands_separator == self.decimal_separator:
            raise InvalidRequestError("thousands_separator", "must differ from decimal_separator")
        if isinstance(self.preamble_lines, bool) or self.preamble_lines < 0:
            raise InvalidRequestError("preamble_lines", "must be a whole number, 0 or more")
        try:
            codecs.lookup(self.encoding)
        except LookupError as err:
            raise InvalidRequestError("encoding", f"{self.encoding!r} is no text encoding") from err
        if not self.date_format:
            raise InvalidRequestError("date_format", "must not be empty")
        if not self.debit_values or not self.credit_values:
            raise InvalidRequestError("debit_values", "debits and credits each need a value")
        if set(self.debit_values) & set(self.credit_values):
            raise InvalidRequestError("credit_values", "shares a value with debit_values")

    def _check_amount(self) -> None:
        split = (self.debit_amount_column, self.credit_amount_column)
        if any(split) and not all(split):
            missing = "credit" if self.debit_amount_column else "debit"
            raise InvalidRequestError(
                f"{missing}_amount_column", "give the debit and the credit amount columns together"
            )
        if all(split):
            for name in ("amount_column", "direction_column"):
                if getattr(self, name):
                    problem = "give it or the debit and credit amount columns, not both"
                    raise InvalidRequestError(name, problem)
        elif not self.amount_column:
            problem = "must name a column (or give debit_amount_column and credit_amount_column)"
            raise InvalidRequestError("amount_column", problem)

    def _one_of(self, name: str) -> None:
        fixed, column = getattr(self, name), getattr(self, f"{name}_column")
        if fixed is None and column is None:
            raise InvalidRequestError(name, f"give the {name} or the column that holds it")
        if fixed is not None and column is not None:
            raise InvalidRequestError(name, f"give the {name} or its column, not both")

    @property
    def split_amounts(self) -> bool:
        """Whether debits and credits are in columns of their own."""
        return self.debit_amount_column is not None

    def columns(self) -> tuple[str, ...]:
        """Every column the file must have."""
        return tuple(
            value
            for field in fields(self)
            if field.name.endswith("_column") and (value := getattr(self, field.name))
        )

    @classmethod
    def simulator(cls) -> CsvMapping:
        """The CSV the payment-provider simulator publishes beside its camt.053."""
        return cls(
            bank_reference_column="bank_reference",
            end_to_end_id_column="end_to_end_id",
            direction_column="direction",
            amount_column="amount",
            currency_column="currency",
            booking_date_column="booking_date",
            value_date_column="value_date",
            kind_column="kind",
            fee_column="fee",
            description_column="description",
            account_column="account",
        )

    @classmethod
    def from_file(cls, path: Path | str) -> CsvMapping:
        """A mapping from a .toml or .json file whose keys are this class's fields."""
        path = Path(path)
        if path.suffix not in {".toml", ".json"}:
            raise InvalidRequestError("mapping", f"{path.name}: use a .toml or .json file")
        try:
            text = path.read_text(encoding="utf-8")
            if path.suffix == ".toml":
                return cls.from_dict(tomllib.loads(text))
            loaded = json.loads(text, object_pairs_hook=refuse_duplicate_keys)
        except InvalidRequestError:
            raise
        except (OSError, ValueError) as err:
            raise InvalidRequestError("mapping", f"cannot read {path}: {err}") from err
        return cls.from_dict(loaded)

    @classmethod
    def from_dict(cls, loaded: Any) -> CsvMapping:
        """A mapping from a TOML table or JSON object naming this class's fields."""
        if not isinstance(loaded, dict):
            raise InvalidRequestError("mapping", "must be a table of field = value")
        known = {field.name for field in fields(cls)}
        values: dict[str, Any] = {}
        for name, value in loaded.items():
            if name not in known:
                raise InvalidRequestError(name, "is no field of a CSV mapping")
            if value is None and name not in _REQUIRED:
                continue
            values[name] = _value(name, value)
        for name in _REQUIRED:
            if name not in values:
                raise InvalidRequestError(name, "is missing")
        return cls(**values)


def _value(name: str, value: Any) -> Any:
    if name in _LISTS:
        if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
            raise InvalidRequestError(name, "must be a list of strings")
        return tuple(value)
    if name in _INTEGERS:
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidRequestError(name, "must be a whole number")
        return value
    if not isinstance(value, str):
        raise InvalidRequestError(name, "must be a string")
    return value
