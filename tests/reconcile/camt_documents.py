"""Small camt documents as a bank would send them, written for the tests (each one is checked
against the official schema of its version where it is used)."""

from __future__ import annotations

NAMESPACE = "urn:iso:std:iso:20022:tech:xsd:{message}.001.{version}"


def entry(
    *,
    amount: str = "250.00",
    currency: str = "EUR",
    direction: str = "DBIT",
    status: str = "BOOK",
    version: int = 8,
    booked: str = "<Dt>2026-11-03</Dt>",
    entry_reference: str = "",
    references: str = "<AcctSvcrRef>BNK-1</AcctSvcrRef>",
    code: str = "<Domn><Cd>PMNT</Cd><Fmly><Cd>ICDT</Cd><SubFmlyCd>ESCT</SubFmlyCd></Fmly></Domn>",
    charges: str = "",
    end_to_end_id: str = "PAY-1",
    details: str = "",
) -> str:
    """One Ntry; `details` go into its TxDtls after the references and the amount."""
    # The status is a bare code up to 001.06 and a choice (Sts/Cd) from 001.07; the amount of
    # a transaction is there from 001.03.
    state = f"<Sts>{status}</Sts>" if version < 7 else f"<Sts><Cd>{status}</Cd></Sts>"
    money = f'<Amt Ccy="{currency}">{amount}</Amt><CdtDbtInd>{direction}</CdtDbtInd>'
    refs = f"<Refs><EndToEndId>{end_to_end_id}</EndToEndId></Refs>" if end_to_end_id else ""
    transaction = f"<TxDtls>{refs}{money if version >= 3 else ''}{details}</TxDtls>"
    return (
        f'<Ntry>{entry_reference}<Amt Ccy="{currency}">{amount}</Amt>'
        f"<CdtDbtInd>{direction}</CdtDbtInd>{state}"
        f"<BookgDt>{booked}</BookgDt><ValDt><Dt>2026-11-04</Dt></ValDt>{references}"
        f"<BkTxCd>{code}</BkTxCd>{charges}<NtryDtls>{transaction}</NtryDtls></Ntry>"
    )


def statement(
    entries: str,
    *,
    version: int = 8,
    account: str = "<Id><IBAN>DE89370400440532013000</IBAN></Id><Ccy>EUR</Ccy>",
    period: str = (
        "<FrToDt><FrDtTm>2026-11-03T00:00:00+01:00</FrDtTm>"
        "<ToDtTm>2026-11-03T23:59:59+01:00</ToDtTm></FrToDt>"
    ),
    statements: int = 1,
) -> bytes:
    """A camt.053 of `version` (2 to 8) with the given entries."""
    namespace = NAMESPACE.format(message="camt.053", version=f"{version:02d}")
    body = (
        f"<Stmt><Id>STMT-2026-11-03</Id><CreDtTm>2026-11-03T23:59:59</CreDtTm>{period}"
        f"<Acct>{account}</Acct>"
        '<Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">1000.00</Amt>'
        "<CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-11-03</Dt></Dt></Bal>"
        f"{entries}</Stmt>"
    )
    return (
        f'<?xml version="1.0" encoding="UTF-8"?>\n<Document xmlns="{namespace}">'
        "<BkToCstmrStmt><GrpHdr><MsgId>MSG-1</MsgId><CreDtTm>2026-11-03T23:59:59</CreDtTm>"
        f"</GrpHdr>{body * statements}</BkToCstmrStmt></Document>"
    ).encode()
