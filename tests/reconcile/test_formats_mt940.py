"""MT940 as banks write it (tests/reconcile/fixtures/mt940_*_codewords.sta and
mt940_german_subfields.sta, written for these tests on the model of Rabobank, ABN AMRO, ING,
Triodos and German savings banks' files): :86: structured subfields, SWIFT code words
(`/EREF/…/RTRN/…/BENM//NAME/…`) or German `?20`-style subfields with SEPA keywords (`EREF+`),
wrapped over 65-character lines; a :61: followed by its supplementary details; an amount with
a decimal comma and no decimals (`1200,`)."""

from __future__ import annotations

import re
from decimal import Decimal

import mt940
import pytest

from sagas.foundations import Money
from sagas.reconcile import LineDirection, LineKind, read_statement
from sagas.reconcile.formats import (
    OPTIONS,
    RAW_DETAILS,
    LineDetails,
    end_to_end_id,
    line_details,
    return_reason,
    structured_details,
)
from tests.reconcile.fixture_files import FIXTURES

DEBIT, CREDIT = LineDirection.DEBIT, LineDirection.CREDIT
RABOBANK = "mt940_rabobank_codewords.sta"
ABN_AMRO = "mt940_abnamro_codewords.sta"
ING = "mt940_ing_codewords.sta"
TRIODOS = "mt940_triodos_codewords.sta"
GERMAN = "mt940_german_subfields.sta"


def _file(name: str) -> bytes:
    return (FIXTURES / name).read_bytes()


def _details(
    e2e: str | None, reason: str | None, description: str, *, states_return: bool = False
) -> LineDetails:
    return LineDetails(
        end_to_end_id=e2e,
        return_reason=reason,
        states_return=states_return,
        description=description,
    )


PAYOUT = "PAYOUT-2026-11-03-{:04d}-SUBMIT".format
"""Our end-to-end ids are up to 35 characters: more than the :61: customer reference holds."""

EXPECTED = {
    RABOBANK: [
        _details(
            PAYOUT(1),
            None,
            "Factuur 2026-118 en 2026-119 voor diensten in oktober (Leverancier Zuid B.V.) "
            "NL20INGB0001234567",
        ),
        _details(None, None, "Kosten betalingsverkeer oktober 2026"),
        # /EREF/ with no value, and the :61: customer reference the marker `EREF`.
        _details(None, None, "Top-up november (Klant Holding B.V.) NL02ABNA0123456789"),
        _details(
            PAYOUT(1),
            "AC04",
            "Retour: rekening opgeheven (Leverancier Zuid B.V.) NL20INGB0001234567",
            states_return=True,
        ),
    ],
    ABN_AMRO: [
        _details(PAYOUT(2), None, "Factuur 2026-118 (Leverancier Zuid B.V.)"),
        _details(None, None, "Top-up november (Klant Holding B.V.)"),
        _details(PAYOUT(2), "AC04", "Factuur 2026-118 (Leverancier Zuid B.V.)", states_return=True),
        _details(None, None, "(Leverancier Zuid B.V.)"),
    ],
    ING: [
        _details(
            PAYOUT(3),
            None,
            "Factuur 2026-120 Leverancier Noord (Leverancier Noord B.V.) /TRCD/00100/",
        ),
        _details(None, None, "Top-up november (Klant Holding B.V.) /TRCD/00100/"),
        _details(
            PAYOUT(3), "AC04", "Retour (Leverancier Noord B.V.) /TRCD/00108/", states_return=True
        ),
    ],
    TRIODOS: [
        _details(PAYOUT(4), None, "Factuur 2026-118 (Leverancier Zuid B.V.)"),
        _details(None, None, "Top-up november (Klant Holding B.V.)"),
        _details(None, None, "Kosten betaalrekening oktober"),
    ],
    GERMAN: [
        _details(PAYOUT(5), None, "Rechnung 4711 vom 28.10.2026 (Lieferant GmbH)"),
        # EREF+NOTPROVIDED; the `EREF:` in the remittance text is no keyword.
        _details(None, None, "Einzahlung November EREF: KD-2026-11 (Kunde AG)"),
        _details(
            PAYOUT(5), "902", "RETOURE Konto erloschen (Lieferant GmbH mit sehr langem Namen)"
        ),
        _details(None, None, "Kontofuehrung Oktober 2026"),
    ],
}
AMOUNTS = {
    RABOBANK: [(DEBIT, 25000), (DEBIT, 175), (CREDIT, 120000), (CREDIT, 25000)],
    ABN_AMRO: [(DEBIT, 25000), (CREDIT, 120000), (CREDIT, 25000), (DEBIT, 750)],
    ING: [(DEBIT, 25000), (CREDIT, 120000), (CREDIT, 25000)],
    TRIODOS: [(DEBIT, 25000), (CREDIT, 120000), (DEBIT, 175)],
    GERMAN: [(DEBIT, 25000), (CREDIT, 120000), (CREDIT, 25000), (DEBIT, 175)],
}


def _statement_lines_counted_apart(data: bytes) -> int:
    return len(re.findall(rb"^:61:", data, re.M))


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_the_library_keeping_86_as_written_gives_each_line_s_details(name: str) -> None:
    (parsed,) = mt940.parse_statements(_file(name), processors=RAW_DETAILS, options=OPTIONS)

    assert [line_details(t.data) for t in parsed.transactions] == EXPECTED[name]


@pytest.mark.parametrize("name", sorted(AMOUNTS))
def test_every_statement_line_of_each_dialect_is_read_with_its_amount(name: str) -> None:
    data = _file(name)

    lines = read_statement(data).lines

    assert len(lines) == _statement_lines_counted_apart(data)
    assert [(x.direction, x.amount) for x in lines] == [
        (direction, Money.of(minor, "EUR")) for direction, minor in AMOUNTS[name]
    ]


def test_a_61_followed_by_its_supplementary_details_and_an_amount_without_decimals() -> None:
    data = _file(RABOBANK)
    assert b"C000000001200,N541EREF\nNL02ABNA0123456789\n" in data

    line = read_statement(data).lines[2]

    assert (line.direction, line.amount) == (CREDIT, Money.of(120000, "EUR"))
    assert "NL02ABNA0123456789" in line.description


@pytest.mark.parametrize(
    ("name", "position", "e2e"),
    [
        (RABOBANK, 0, PAYOUT(1)),
        (ABN_AMRO, 0, PAYOUT(2)),
        (ABN_AMRO, 1, None),
        (ABN_AMRO, 3, None),
        (ING, 0, PAYOUT(3)),
        (TRIODOS, 0, PAYOUT(4)),
    ],
)
def test_read_statement_takes_the_end_to_end_id_from_the_code_words(
    name: str, position: int, e2e: str | None
) -> None:
    assert read_statement(_file(name)).lines[position].end_to_end_id == e2e


def test_read_statement_takes_a_return_s_reason_from_its_code_words() -> None:
    line = read_statement(_file(ING)).lines[2]

    assert line.kind is LineKind.RETURN
    assert [(t.end_to_end_id, t.return_reason) for t in line.transactions] == [(PAYOUT(3), "AC04")]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_read_statement_gives_each_dialect_s_details(name: str) -> None:
    lines = read_statement(_file(name)).lines
    expected = EXPECTED[name]

    assert [x.end_to_end_id for x in lines] == [d.end_to_end_id for d in expected]
    assert [x.description for x in lines] == [d.description for d in expected]
    assert [
        [t.return_reason for t in x.transactions] for x in lines if x.kind is LineKind.RETURN
    ] == [[d.return_reason] for d in expected if d.return_reason]


@pytest.mark.parametrize(
    ("details", "e2e"),
    [
        # A value wrapped inside, and code words split over two lines.
        ("/EREF/PAYOUT-2026-11-03-00\n01-SUBMIT/RE\nMI/Invoice 1", PAYOUT(1)),
        ("/EREF//BENM//NAME/Supplier/REMI/Invoice 1", None),
        ("/EREF/NOTPROVIDED/REMI/Invoice 1", None),
        ("/EREF/NOTPRO\nVIDED", None),
        ("/REMI/Invoice 1/EREF/", None),
        ("/EREF/PAYOUT-2026-11-03-0001-SUBMIT//CNTP/NL20RABO0123456789/RABONL2U/X///", PAYOUT(1)),
        ("/EREF/02-02-26 20:40 7180665058869563//REMI/USTD//x/", "02-02-26 20:40 7180665058869563"),
        # Free text that names EREF is no reference.
        ("Payment EREF PAYOUT-0001", None),
        ("EREF", None),
        ("EREF+PAYOUT-0001", None),
        ("166?00GUTSCHRIFT?20EREF+PAYOUT-2026-11-03-000?211-SUBMIT?22SVWZ+x", PAYOUT(1)),
        ("166?00GUTSCHRIFT?20EREF+?21SVWZ+Invoice 1", None),
        ("166?00GUTSCHRIFT?20SVWZ+see EREF: KD-1?21and EREF-7", None),
        ("166?00GUTSCHRIFT?20SVWZ+Invoice 1 XEREF+KD-1", None),
        (
            "109?00RUECKLASTSCHRIFT?20EREF+A1.2000\n80779?21.4961336 KREF+K-1 MREF+M-1",
            "A1.200080779.4961336",
        ),
        ("166?00GUTSCHRIFT?20SVWZ+Invoice 1 EREF+KD-1", "KD-1"),
        ("166?00GUTSCHRIFT?2\n0EREF+KD-1", "KD-1"),
    ],
)
def test_the_end_to_end_id_of_a_structured_86(details: str, e2e: str | None) -> None:
    assert end_to_end_id(details) == e2e


@pytest.mark.parametrize(
    ("details", "reason"),
    [
        ("/RTRN/AC04/EREF/PAYOUT-0001", "AC04"),
        ("/EREF/PAYOUT-0001/RTRN/MS03/", "MS03"),
        ("/EREF/PAYOUT-0001/RTRN//REMI/x", None),
        ("/EREF/PAYOUT-0001", None),
        ("159?00RETOURE?20EREF+PAYOUT-0001?34902", "902"),
        ("166?00GUTSCHRIFT?20EREF+PAYOUT-0001?34000", None),
        ("Returned: AC04", None),
    ],
)
def test_the_return_reason_of_a_structured_86(details: str, reason: str | None) -> None:
    assert return_reason(details) == reason


@pytest.mark.parametrize(
    ("details", "remittance"),
    [
        ("/REMI/USTD//Factuur 2026-120 Leverancier\n Noord/", "Factuur 2026-120 Leverancier Noord"),
        ("/REMI/STRD/CUR/RF18539007547034/", "RF18539007547034"),
        ("/REMI//ISDT/2026-11-03", None),
        ("/EREF/X/REMI/Dit is de omschrijving/EREF/Y", "Dit is de omschrijving"),
        (
            "116?00SEPA?20EREF+X?21SVWZ+Rechnung 4711 vom 28.1?220.2026",
            "Rechnung 4711 vom 28.10.2026",
        ),
        ("805?00ABSCHLUSS?20Kontofuehrung ?21Oktober", "Kontofuehrung Oktober"),
        ("166?00GUTSCHRIFT?20Spende Mitglied EREF+X", "Spende Mitglied"),
    ],
)
def test_the_remittance_of_a_structured_86(details: str, remittance: str | None) -> None:
    found = structured_details(details)

    assert found is not None
    assert found.remittance == remittance


def test_a_free_text_86_states_nothing_structured() -> None:
    assert structured_details("BEA   NR:XXX1234   21.05.11/12.54 DIRCKIII KATWIJK,PAS999") is None


@pytest.mark.parametrize(
    ("customer", "e2e"),
    [("EREF", None), ("NONREF", None), ("PREF", None), ("KREF+BATCH-7", "BATCH-7"), ("P-1", "P-1")],
)
def test_a_61_customer_reference_that_only_points_to_86_is_no_reference(
    customer: str, e2e: str | None
) -> None:
    transaction = {"customer_reference": customer, "transaction_details": "/REMI/x"}

    assert line_details(transaction).end_to_end_id == e2e


def test_the_library_cuts_no_86_when_told_not_to() -> None:
    long_text = "/REMI/" + "x" * 700 + "/EREF/PAYOUT-0001"
    data = _file(TRIODOS).replace(
        b":86:/REMI/USTD//Kosten betaalrekening oktober/", b":86:" + long_text.encode()
    )

    (parsed,) = mt940.parse_statements(data, processors=RAW_DETAILS, options=OPTIONS)

    assert line_details(parsed.transactions[2].data).end_to_end_id == "PAYOUT-0001"
    assert parsed.transactions[2].data["amount"].amount == Decimal("-1.75")
