"""Who may call back a saga: the provider that holds its saga type's secret.

A callback carries `Fundsaga-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256>`, the HMAC keyed by
the provider's secret over `<t>.` followed by the raw body (the scheme Stripe's webhooks use).
It is refused unless the signature matches (compared in constant time) and `t` is within the
tolerance of the receiver's clock, and a body's `event_id` is delivered once.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass

from sagas.foundations import InvalidRequestError, Settings, checked_secret

SIGNATURE_HEADER = "Fundsaga-Signature"
TOLERANCE_SECONDS = 300
"""How far a callback's timestamp may be from the receiver's clock: the window a replay has."""
SETTING = "FUNDSAGA_WEBHOOK_SECRETS"


def signature_header(secret: str, body: bytes, timestamp: int | None = None) -> str:
    """The header value a provider sends with `body` (for simulators and tests)."""
    stamp = int(time.time()) if timestamp is None else timestamp
    return f"t={stamp},v1={_mac(secret, stamp, body)}"


def _mac(secret: str, timestamp: int, body: bytes) -> str:
    signed = str(timestamp).encode() + b"." + body
    return hmac.new(secret.encode(), signed, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class WebhookSecrets:
    """Each saga type's provider secret."""

    by_saga_type: Mapping[str, str]

    @classmethod
    def parse(cls, text: str) -> WebhookSecrets:
        """`SAGA_TYPE=SECRET,...`; InvalidRequestError naming the setting for a malformed entry
        or a weak secret."""
        secrets: dict[str, str] = {}
        for entry in filter(None, (part.strip() for part in text.split(","))):
            saga_type, sep, secret = entry.partition("=")
            if not sep or not saga_type.strip():
                raise InvalidRequestError(SETTING, "entries are SAGA_TYPE=SECRET")
            if saga_type.strip() in secrets:
                raise InvalidRequestError(SETTING, f"{saga_type.strip()} is given twice")
            secrets[saga_type.strip()] = checked_secret(secret, f"{SETTING}.{saga_type.strip()}")
        return cls(secrets)

    @classmethod
    def configured(cls, settings: Settings) -> WebhookSecrets:
        """The secrets of FUNDSAGA_WEBHOOK_SECRETS; InvalidRequestError when there are none: a
        receiver without them could only refuse every callback."""
        secrets = cls.parse(settings.webhook_secrets.get_secret_value())
        if not secrets.by_saga_type:
            raise InvalidRequestError(
                SETTING, "set SAGA_TYPE=SECRET for each saga type a provider calls back"
            )
        return secrets

    def problem(self, saga_type: str, header: str, body: bytes, now: float) -> str | None:
        """Why a callback for `saga_type` is refused; None when it is signed and fresh."""
        secret = self.by_saga_type.get(saga_type)
        if secret is None:
            return f"no provider secret is configured for {saga_type}"
        signed = parse_signature(header)
        if signed is None:
            return MALFORMED
        stamp, given = signed
        if abs(now - stamp) > TOLERANCE_SECONDS:
            return f"the signature's timestamp is more than {TOLERANCE_SECONDS} s from now"
        if not hmac.compare_digest(given.encode(), _mac(secret, stamp, body).encode()):
            return "the signature does not match the body"
        return None


MALFORMED = f"{SIGNATURE_HEADER} must be t=<unix seconds>,v1=<64 hex digits>"
_SIGNATURE = re.compile(r"t=(?P<t>[0-9]{1,12}),v1=(?P<v1>[0-9a-fA-F]{64})")


def parse_signature(header: str) -> tuple[int, str] | None:
    """The timestamp and HMAC of a well-formed header, else None: ASCII digits only (`²` is a
    digit to Python's str.isdigit and int() refuses it), at most 12 of them (int() refuses
    thousands), so that nothing after this raises on what a caller sent."""
    found = _SIGNATURE.fullmatch(header.strip())
    return None if found is None else (int(found["t"]), found["v1"].lower())


class SeenEvents:
    """Event ids delivered within the tolerance window (older ones are refused by timestamp
    anyway), so a replayed callback reaches no saga twice."""

    def __init__(self, limit: int = 100_000) -> None:
        self._seen: OrderedDict[str, float] = OrderedDict()
        self._limit = limit
        self._lock = threading.Lock()

    def first_time(self, event_id: str, now: float) -> bool:
        with self._lock:
            while self._seen and (
                len(self._seen) >= self._limit
                or next(iter(self._seen.values())) < now - 2 * TOLERANCE_SECONDS
            ):
                self._seen.popitem(last=False)
            if event_id in self._seen:
                return False
            self._seen[event_id] = now
            return True

    def forget(self, event_id: str) -> None:
        with self._lock:
            self._seen.pop(event_id, None)
