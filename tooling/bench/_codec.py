"""The data converter of every Temporal client of a run: the load generator's and the worker's."""

from __future__ import annotations

from temporalio.converter import DataConverter

from sagas.codec import PayloadKeys, converter_for
from tooling.bench._config import WorkerKnobs

RUN_KEY_ID = "bench"


def run_keys(knobs: WorkerKnobs) -> str:
    """A key made for this run when the codec is on (`ID=BASE64`), else empty: it lives only as
    long as the run's processes and is never written to the report."""
    return PayloadKeys.generate(RUN_KEY_ID) if knobs.codec else ""


def bench_converter(payload_keys: str) -> DataConverter:
    """fundsaga's converter: pydantic, and with keys, payloads encrypted and failures encoded."""
    return converter_for(PayloadKeys.parse(payload_keys))


def describe_converter(knobs: WorkerKnobs) -> str:
    if knobs.codec:
        return "pydantic; payloads AES-256-GCM encrypted (EncryptingCodec), failures encoded"
    return "pydantic; payloads in plain JSON"
