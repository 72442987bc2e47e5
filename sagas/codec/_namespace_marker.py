"""How a client learns that its deployment encrypts: the encrypting deployment's worker sets a
marker in the Temporal namespace's data, and a client without payload keys that finds it
refuses to start anything (PlainTextRefusedError naming FUNDSAGA_PAYLOAD_KEYS).

The marker is an early, clear refusal for honest callers; the worker's own refusal of plain
text does not depend on it.
"""

from __future__ import annotations

from temporalio.api.namespace.v1 import UpdateNamespaceInfo
from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest, UpdateNamespaceRequest
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from sagas.codec._encrypting_codec import EncryptingCodec
from sagas.codec._payload_codec import KEYS_SETTING
from sagas.codec._plain_text import PlainTextRefusedError

ENCRYPTION_MARKER = "fundsaga.payload-encryption"
"""The namespace data key; its value is ENCRYPTION_REQUIRED once a deployment encrypts."""
ENCRYPTION_REQUIRED = "required"
_UNANSWERED = {RPCStatusCode.UNIMPLEMENTED, RPCStatusCode.PERMISSION_DENIED}


def encrypts(client: Client) -> bool:
    """Whether the client seals its payloads with payload keys."""
    return isinstance(client.data_converter.payload_codec, EncryptingCodec)


async def namespace_requires_encryption(client: Client) -> bool:
    """Whether the namespace carries the marker; False from a server without namespaces to
    describe (the time-skipping test server) or a caller not allowed to describe it."""
    try:
        described = await client.workflow_service.describe_namespace(
            DescribeNamespaceRequest(namespace=client.namespace)
        )
    except RPCError as err:
        if err.status in _UNANSWERED:
            return False
        raise
    return described.namespace_info.data.get(ENCRYPTION_MARKER) == ENCRYPTION_REQUIRED


async def mark_namespace_encrypted(client: Client) -> None:
    """Set the marker (namespace data is merged, so other keys stay); needs the right to
    update the namespace."""
    await client.workflow_service.update_namespace(
        UpdateNamespaceRequest(
            namespace=client.namespace,
            update_info=UpdateNamespaceInfo(data={ENCRYPTION_MARKER: ENCRYPTION_REQUIRED}),
        )
    )


async def refuse_plain_text_start(client: Client) -> None:
    """PlainTextRefusedError when the client would write plain text to a namespace whose
    deployment encrypts."""
    if encrypts(client) or not await namespace_requires_encryption(client):
        return
    raise PlainTextRefusedError(
        KEYS_SETTING,
        f"is not set, but namespace {client.namespace!r} holds an encrypting deployment "
        f"({ENCRYPTION_MARKER}={ENCRYPTION_REQUIRED} in its data): nothing was started, "
        "set the deployment's payload keys",
    )
