"""Which column of a rail's CSV holds which field of a statement line, declared in a file."""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from sagas.foundations import InvalidRequestError, currency, refuse_duplicate_keys

_REQUIRED = ("amount_column", "booking_date_column")
_LISTS = frozenset({"debit_values", "credit_values"})


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
    """

    amount_column: str
    """Unsigned with a `direction_column`; without one, signed: negative is a debit."""
    booking_date_column: str
    bank_reference_column: str | None = None
    """None: the export has no reference of the bank's (many do not); its rows are then told
    apart by their content and how often it recurs (docs/reconciliation.md)."""
    end_to_end_id_column: str | None = None
    direction_column: str | None = None
    value_date_column: str | None = None
    """None: the value date is the booking date."""
    currency_column: str | None = None
    kind_column: str | None = None
    """Cells payout, return, fee or other (any case); None: every line is other."""
    fee_column: str | None = None
    description_column: str | None = None
    account_column: str | None = None
    account: str | None = None
    """The account when no column holds it."""
    currency: str | None = None
    """The currency when no column holds it."""
    statement_id: str | None = None
    """None: derived from the file's bytes, so the same file always has the same id."""
    date_format: str = "%Y-%m-%d"
    """A `datetime.strptime` format, for both dates."""
    delimiter: str = ","
    decimal_separator: str = "."
    debit_values: tuple[str, ...] = ("debit", "D", "DBIT")
    credit_values: tuple[str, ...] = ("credit", "C", "CRDT")

    def __post_init__(self) -> None:
        self._check()

    def _check(self) -> None:
        for name in _REQUIRED:
            if not getattr(self, name):
                raise InvalidRequestError(name, "must name a column")
        if self.account is None and self.account_column is None:
            raise InvalidRequestError("account", "give the account or the column that holds it")
        if self.currency is None and self.currency_column is None:
            raise InvalidRequestError("currency", "give the currency or the column that holds it")
        if self.currency is not None:
            currency(self.currency)
        if len(self.delimiter) != 1:
            raise InvalidRequestError("delimiter", "must be one character")
        if self.decimal_separator not in {".", ","}:
            raise InvalidRequestError("decimal_separator", "must be '.' or ','")
        if not self.date_format:
            raise InvalidRequestError("date_format", "must not be empty")
        if not self.debit_values or not self.credit_values:
            raise InvalidRequestError("debit_values", "debits and credits each need a value")
        if set(self.debit_values) & set(self.credit_values):
            raise InvalidRequestError("credit_values", "shares a value with debit_values")

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
            values[name] = _list(name, value) if name in _LISTS else _text(name, value)
        for name in _REQUIRED:
            if name not in values:
                raise InvalidRequestError(name, "is missing")
        return cls(**values)


def _text(name: str, value: Any) -> str:
    if not isinstance(value, str):
        raise InvalidRequestError(name, "must be a string")
    return value


def _list(name: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise InvalidRequestError(name, "must be a list of strings")
    return tuple(value)
