"""docker-compose.yml and the files beside it, read as data: what the deploy tests share."""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy import URL, make_url

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
ENV_EXAMPLE = ROOT / ".env.example"
DEPLOY = ROOT / "deploy"

INTERPOLATION = re.compile(r"\$\{(\w+)(?::?[-?][^}]*)?\}")
"""`${VAR}`, `${VAR:-default}`, `${VAR:?message}`: what compose fills in from `.env`."""


@cache
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def services() -> dict[str, dict[str, Any]]:
    found: dict[str, dict[str, Any]] = compose()["services"]
    return found


def service(name: str) -> dict[str, Any]:
    return services()[name]


def environment(name: str) -> dict[str, str]:
    """A service's environment, every value as the text compose reads."""
    return {key: str(value) for key, value in service(name).get("environment", {}).items()}


def bind_mounts(name: str) -> dict[str, str]:
    """A service's mounts of files in the repository: container path -> repository path."""
    mounts = {}
    for volume in service(name).get("volumes", []):
        source, target = volume.split(":")[:2]
        if source.startswith("./"):
            mounts[target] = source.removeprefix("./")
    return mounts


def named_volume_mounts(name: str) -> dict[str, str]:
    """A service's mounts of named volumes: container path -> volume name."""
    mounts = {}
    for volume in service(name).get("volumes", []):
        source, target = volume.split(":")[:2]
        if not source.startswith(("./", "/")):
            mounts[target] = source
    return mounts


def env_example() -> dict[str, str]:
    pairs = (line.split("=", 1) for line in ENV_EXAMPLE.read_text().splitlines())
    return {pair[0]: pair[1] for pair in pairs if len(pair) == 2 and not pair[0].startswith("#")}


def database_url(setting: str) -> URL:
    """The database a `FUNDSAGA_DATABASE_URL` or a `db:` store setting names."""
    return make_url(setting.removeprefix("db:"))


def port_of(address: str) -> int:
    return int(address.rpartition(":")[2])


def project_version() -> str:
    version: str = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    return version
