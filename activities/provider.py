"""A small JSON client of the payment provider's API, its answers read as the saga's errors.

422 → PayoutDeclinedError (business); 429 → ProviderRateLimitedError with the Retry-After;
no answer in time, a dropped connection or a 5xx → ProviderUnavailableError (transient).
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import quote

from sagas.payouts import (
    PayoutDeclinedError,
    ProviderKeyConflictError,
    ProviderRateLimitedError,
    ProviderUnavailableError,
)

DEFAULT_RETRY_AFTER = timedelta(seconds=1)


@dataclass(frozen=True)
class ProviderClient:
    base_url: str
    timeout: float

    def validate(self, body: dict[str, Any]) -> None:
        self._call("POST", "/validations", body)

    def submit(self, body: dict[str, Any]) -> str:
        """The payout's status once the provider took it (accepted or settled)."""
        return str(self._call("POST", "/payouts", body)["status"])

    def status(self, key: str) -> str | None:
        """accepted, settled, declined or unknown; None for a key the provider never saw."""
        try:
            answer = self._call("GET", f"/payouts/{quote(key, safe='')}")
        except _NotFoundError:
            return None
        return str(answer["status"])

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(
            self.base_url.rstrip("/") + path,
            data=data,
            method=method,
            headers={"Content-Type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as answer:
                return json.loads(answer.read())
        except urllib.error.HTTPError as err:
            with err:
                raise _error_of(err) from None
        except (urllib.error.URLError, OSError) as err:
            raise ProviderUnavailableError(f"the provider did not answer: {err}") from None


class _NotFoundError(Exception):
    pass


def _error_of(err: urllib.error.HTTPError) -> Exception:
    try:
        body = json.loads(err.read())
    except ValueError:
        body = {}
    reason = body.get("reason") or body.get("error") or err.reason
    if err.code == 404:
        return _NotFoundError(reason)
    if err.code == 422:
        return PayoutDeclinedError(f"the provider declined the payout: {reason}")
    if err.code == 409:
        return ProviderKeyConflictError(f"the provider holds another payout by this key: {reason}")
    if err.code == 429:
        return ProviderRateLimitedError(
            "the provider is rate limiting", retry_after=_retry_after(err)
        )
    return ProviderUnavailableError(f"the provider answered {err.code}: {reason}")


def _retry_after(err: urllib.error.HTTPError) -> timedelta:
    value = err.headers.get("Retry-After", "")
    return timedelta(seconds=int(value)) if value.isdigit() else DEFAULT_RETRY_AFTER
