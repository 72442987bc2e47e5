"""What the transfer saga has done so far: the data carried from step to step."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class TransferState(BaseModel):
    model_config = ConfigDict(frozen=True)

    hold_key: str | None = None
    capture_entry_id: int | None = None
    credit_entry_id: int | None = None
    settlement_key: str | None = None
    released_hold_key: str | None = None
    """The pending hold on the destination, voided by `release`: the money is then final."""
