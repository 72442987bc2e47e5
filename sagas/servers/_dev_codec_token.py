"""The development codec server's token: a new one each `fundsaga dev` run, readable by the
developer who started it only, so another local user cannot decode the histories (and read the
operator tokens in them) through it."""

from __future__ import annotations

import secrets
from pathlib import Path

from sagas.foundations import write_new_file

DEV_CODEC_TOKEN_FILE = "codec-server-token"


def new_dev_codec_token(home: Path) -> Path:
    """A fresh token in `home`/codec-server-token (0600, replacing the last run's); its path."""
    home.mkdir(parents=True, exist_ok=True, mode=0o700)
    path = home / DEV_CODEC_TOKEN_FILE
    path.unlink(missing_ok=True)
    write_new_file(path, secrets.token_urlsafe(32).encode(), 0o600)
    return path
