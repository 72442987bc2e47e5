"""`fundsaga payload-key` and `fundsaga codec-server` from the command line."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from sagas.cli import app
from sagas.codec import PayloadKeys

RUNNER = CliRunner()


def test_payload_key_prints_an_entry_the_setting_accepts() -> None:
    first = RUNNER.invoke(app, ["payload-key", "key-2026-11"], env={})
    second = RUNNER.invoke(app, ["payload-key", "key-2026-11"], env={})

    assert first.exit_code == 0, first.output
    keys = PayloadKeys.parse(first.output.strip())
    assert keys is not None
    assert keys.active_id == "key-2026-11"
    assert first.output != second.output


def test_payload_key_refuses_a_bad_id() -> None:
    result = RUNNER.invoke(app, ["payload-key", "no spaces"], env={})

    assert result.exit_code == 2
    assert "FUNDSAGA_PAYLOAD_KEYS" in result.output


@pytest.mark.parametrize(
    ("env", "named"),
    [
        ({"FUNDSAGA_PAYLOAD_KEYS": ""}, "FUNDSAGA_PAYLOAD_KEYS"),
        ({"FUNDSAGA_PAYLOAD_KEYS": "k1=short"}, "FUNDSAGA_PAYLOAD_KEYS"),
        (
            {
                "FUNDSAGA_PAYLOAD_KEYS": PayloadKeys.generate("k1"),
                "FUNDSAGA_CODEC_SERVER_TOKEN": "",
            },
            "FUNDSAGA_CODEC_SERVER_TOKEN",
        ),
        (
            {
                "FUNDSAGA_PAYLOAD_KEYS": PayloadKeys.generate("k1"),
                "FUNDSAGA_CODEC_SERVER_JWKS_URL": "https://idp.example/certs",
                "FUNDSAGA_CODEC_SERVER_ISSUER": "https://idp.example",
            },
            "FUNDSAGA_CODEC_SERVER_AUDIENCE",
        ),
    ],
)
def test_codec_server_refuses_to_start_without_what_it_needs(
    env: dict[str, str], named: str
) -> None:
    result = RUNNER.invoke(app, ["codec-server", "--host", "0.0.0.0", "--port", "0"], env=env)

    assert result.exit_code == 2
    assert named in result.output
