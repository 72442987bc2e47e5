"""The audit trail a process opens: workers sign and anchor, every other command verifies."""

from __future__ import annotations

import logging
from pathlib import Path

from sagas.audit import (
    PUBLIC_KEYS_SETTING,
    AnchoredAuditStore,
    AnchorStore,
    AuditKeys,
    Checkpoint,
    Keyring,
    SigningKey,
    open_audit_store,
)
from sagas.foundations import InvalidRequestError, Settings

log = logging.getLogger("fundsaga.audit")


def writer_keys(settings: Settings, *, make_dev_key: bool = False) -> AuditKeys:
    """The signing key of FUNDSAGA_AUDIT_SIGNING_KEY; `fundsaga dev` makes one if it is missing."""
    path = Path(settings.audit_signing_key)
    if make_dev_key and not path.exists():
        public = SigningKey.generate().write(path)
        log.warning("made a development audit signing key at %s (public key %s)", path, public)
    return AuditKeys.for_writer(
        SigningKey.read(path), Keyring.read(settings.audit_public_key_paths)
    )


def verifier_keys(settings: Settings) -> AuditKeys:
    """The trusted public keys: FUNDSAGA_AUDIT_PUBLIC_KEYS and the signing key's own `.pub`."""
    paths = list(settings.audit_public_key_paths)
    beside = Path(settings.audit_signing_key).with_suffix(".pub")
    if beside.exists():
        paths.append(beside)
    if not paths:
        raise InvalidRequestError(
            PUBLIC_KEYS_SETTING, "no public key to verify audit signatures with: name the files"
        )
    return AuditKeys(Keyring.read(paths))


def open_audit(settings: Settings, keys: AuditKeys, *, scans: bool = False) -> AnchoredAuditStore:
    """The configured audit store, anchored every FUNDSAGA_AUDIT_ANCHOR_EVERY records in the
    anchor store configured apart from it; `scans`: for a command that reads whole tables."""
    if settings.audit_anchor_store == settings.audit_store:
        raise InvalidRequestError(
            "FUNDSAGA_AUDIT_ANCHOR_STORE", "must be a store apart from FUNDSAGA_AUDIT_STORE"
        )
    timeouts = settings.database_timeouts(scans=scans)
    anchors = AnchorStore(open_audit_store(settings.audit_anchor_store, keys, timeouts=timeouts))
    store = open_audit_store(settings.audit_store, keys, timeouts=timeouts)
    return AnchoredAuditStore(store, anchors, settings.audit_anchor_every)


def anchor_head(store: AnchoredAuditStore) -> Checkpoint | None:
    """Anchor the chain at its head now (`fundsaga audit anchor`); None for an empty chain."""
    head = store.head()
    return None if head is None else store.anchors.anchor(head)
