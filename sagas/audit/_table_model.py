"""The audit_record table. Migration 2026_11_21_0002 adds the triggers and the writer role."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, MetaData, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from sagas.foundations import KEY_LENGTH, NAMING_CONVENTION, UtcDateTime

WRITER_ROLE = "fundsaga_audit_writer"
HASH_LENGTH = 64
KEY_ID_LENGTH = 16
SIGNATURE_LENGTH = 88


class AuditBase(DeclarativeBase):
    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {datetime: UtcDateTime()}


class AuditRow(AuditBase):
    __tablename__ = "audit_record"

    sequence: Mapped[int] = mapped_column(BigInteger, primary_key=True, autoincrement=False)
    recorded_at: Mapped[datetime]
    kind: Mapped[str] = mapped_column(String(KEY_LENGTH))
    saga_id: Mapped[str] = mapped_column(String(KEY_LENGTH), index=True)
    dedupe_key: Mapped[str] = mapped_column(String(KEY_LENGTH), unique=True)
    payload: Mapped[str] = mapped_column(Text)
    """The canonical JSON text that was hashed, byte for byte."""
    prev_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    key_id: Mapped[str] = mapped_column(String(KEY_ID_LENGTH), server_default="")
    hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    signature: Mapped[str] = mapped_column(String(SIGNATURE_LENGTH), server_default="")


metadata = AuditBase.metadata
