"""A worker with payload keys tells clients that its namespace encrypts (sagas.codec's
namespace marker), so that a client without keys refuses to start sagas in plain text."""

from __future__ import annotations

import logging

from temporalio.client import Client
from temporalio.service import RPCError

from sagas.codec import (
    ENCRYPTION_MARKER,
    ENCRYPTION_REQUIRED,
    encrypts,
    mark_namespace_encrypted,
    namespace_requires_encryption,
)

log = logging.getLogger("fundsaga.worker")


async def announce_encryption(client: Client) -> bool:
    """Mark the client's namespace as encrypting when the client encrypts; whether it is marked.

    A worker without the right to update the namespace logs how an administrator sets the
    marker, and runs: it refuses plain text all the same.
    """
    if not encrypts(client):
        return False
    try:
        if not await namespace_requires_encryption(client):
            await mark_namespace_encrypted(client)
    except RPCError as err:
        log.warning(
            "could not mark namespace %r as encrypting (%s); clients without payload keys are "
            "refused by the workers only until an administrator runs `temporal operator "
            "namespace update --namespace %s --data %s=%s`",
            client.namespace,
            err.message,
            client.namespace,
            ENCRYPTION_MARKER,
            ENCRYPTION_REQUIRED,
        )
        return False
    return True
