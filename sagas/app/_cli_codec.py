"""`fundsaga codec-server` and `fundsaga payload-key`: encrypted payloads, shown to operators."""

from __future__ import annotations

from typing import Annotated

import typer

from sagas.app._cli_dev import until_stopped
from sagas.app._cli_invocation import Invocation
from sagas.app._codec_auth import AccessTokenCheck, CodecAuthorisation
from sagas.app._codec_server import serve_codec
from sagas.app._payload_codec import KEYS_SETTING, PayloadKeys
from sagas.foundations import InvalidRequestError, Settings


def codec_server(
    ctx: typer.Context,
    port: Annotated[int, typer.Option(help="The port to listen on.")] = 8888,
    host: Annotated[str, typer.Option(help="The address to listen on.")] = "127.0.0.1",
) -> None:
    """Decode (and encode) payloads for the Temporal UI and the `temporal` CLI, for callers
    with FUNDSAGA_CODEC_SERVER_TOKEN as their bearer token."""
    invocation = Invocation.of(ctx)
    invocation.run(run_codec_server(invocation.settings, host, port))


def payload_key(
    key_id: Annotated[str, typer.Argument(help="The new key's id, say key-2026-11.")],
) -> None:
    """Print a new entry for FUNDSAGA_PAYLOAD_KEYS: put it first to encrypt with it, and keep
    the old entries after it while histories they sealed are still read."""
    entry = PayloadKeys.generate(key_id)
    PayloadKeys.parse(entry)  # the id must be one the setting accepts
    print(entry)


def required_keys(settings: Settings) -> PayloadKeys:
    keys = PayloadKeys.parse(settings.payload_keys.get_secret_value())
    if keys is None:
        raise InvalidRequestError(KEYS_SETTING, "not set: there is nothing to decrypt with")
    return keys


async def run_codec_server(settings: Settings, host: str, port: int) -> None:
    auth = codec_authorisation(settings)
    origins = settings.codec_server_origin_list
    with serve_codec(required_keys(settings), auth, origins, host, port) as server:
        who = [
            *(["the bearer token"] if auth.token else []),
            *(["signed-in operators' access tokens"] if auth.access_tokens else []),
        ]
        print(
            f"codec server on {server.url} (POST .../decode, .../encode) for origins "
            f"{', '.join(origins) or 'none'}; "
            + (f"accepts {' or '.join(who)}" if who else "no token: loopback only")
        )
        await until_stopped()


def codec_authorisation(settings: Settings) -> CodecAuthorisation:
    """The static token, and the identity provider's access tokens when its JWKS is set
    (audience and issuer then required)."""
    token = settings.codec_server_token.get_secret_value()
    if not settings.codec_server_jwks_url:
        return CodecAuthorisation(token)
    for field, value in (
        ("FUNDSAGA_CODEC_SERVER_AUDIENCE", settings.codec_server_audience),
        ("FUNDSAGA_CODEC_SERVER_ISSUER", settings.codec_server_issuer),
    ):
        if not value:
            raise InvalidRequestError(field, "required with FUNDSAGA_CODEC_SERVER_JWKS_URL")
    check = AccessTokenCheck(
        settings.codec_server_jwks_url, settings.codec_server_audience, settings.codec_server_issuer
    )
    return CodecAuthorisation(token, check)
