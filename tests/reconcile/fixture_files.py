"""The statement files of tests/reconcile/fixtures, modelled on real banks' dialects and
written for these tests, with their placeholders filled in for a day and our references."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from string import Template

FIXTURES = Path(__file__).parent / "fixtures"


def fixture(name: str, day: date, **values: str) -> bytes:
    """The file `name`, dated `day`, with `values` in place of its other placeholders."""
    text = Template((FIXTURES / name).read_text(encoding="utf-8")).substitute(
        DAY=day.isoformat(),
        COMPACT=day.strftime("%Y%m%d"),
        YYMMDD=day.strftime("%y%m%d"),
        MMDD=day.strftime("%m%d"),
        **values,
    )
    return text.encode()


def return_entry(day: date, *, end_to_end_id: str, amount: str) -> str:
    """A camt entry returning one payout, reason AC04, for camt053_fee_and_return.xml."""
    return fixture("camt053_return_entry.xml", day, E2E=end_to_end_id, AMOUNT=amount).decode()
