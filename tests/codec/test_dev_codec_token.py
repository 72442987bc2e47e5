"""The development codec server's per-run token, as another local user would try the server:
without it every decode is refused (401); the developer, who alone can read its 0600 file,
sends it as a bearer token or as the first part of the UI's codec endpoint."""

from __future__ import annotations

import stat
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from sagas.codec import PayloadKeys
from sagas.servers import free_port, new_dev_codec_token, serve_codec

KEYS = PayloadKeys.parse(PayloadKeys.generate("dev-key"))


def decode_status(url: str, headers: dict[str, str] | None = None) -> int:
    request = urllib.request.Request(
        url,
        data=b'{"payloads": []}',
        method="POST",
        headers={"Content-Type": "application/json", **(headers or {})},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        refused.close()
        return refused.code


@pytest.fixture
def token_file(tmp_path: Path) -> Path:
    return new_dev_codec_token(tmp_path / ".fundsaga")


@pytest.fixture
def codec_url(token_file: Path) -> Iterator[str]:
    assert KEYS is not None
    with serve_codec(KEYS, token_file.read_text(), [], "127.0.0.1", free_port()) as server:
        yield server.url


def test_the_token_is_new_each_run_and_readable_by_its_owner_only(tmp_path: Path) -> None:
    first = new_dev_codec_token(tmp_path).read_text()
    path = new_dev_codec_token(tmp_path)

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert path.read_text() != first
    assert len(path.read_text()) >= 43


@pytest.mark.parametrize(
    ("path", "headers"),
    [
        ("/decode", {}),
        ("/decode", {"Authorization": "Bearer "}),
        ("/decode", {"Authorization": "Bearer guessed-token-guessed-token-guessed-00"}),
        ("/guessed-token/decode", {}),
        ("/api/v1/namespaces/default/decode", {}),
    ],
    ids=["no-token", "empty-bearer", "wrong-bearer", "wrong-path-token", "ui-path"],
)
def test_without_its_token_the_dev_codec_server_answers_401(
    codec_url: str, path: str, headers: dict[str, str]
) -> None:
    assert decode_status(f"{codec_url}{path}", headers) == 401


def test_with_its_token_the_developer_decodes(codec_url: str, token_file: Path) -> None:
    token = token_file.read_text()

    assert decode_status(f"{codec_url}/decode", {"Authorization": f"Bearer {token}"}) == 200
    assert decode_status(f"{codec_url}/{token}/decode") == 200
    assert decode_status(f"{codec_url}/{token}/api/v1/namespaces/default/decode") == 200
