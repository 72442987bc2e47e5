"""Which key signs an evidence report: the one named with `--sign-key`, else the deployment's
audit signing key where this machine holds it; without either the report is written unsigned,
and says so."""

from __future__ import annotations

from pathlib import Path

from sagas.audit import SIGNING_KEY_SETTING, SigningKey
from sagas.foundations import InvalidRequestError, Settings


def report_signer(settings: Settings, sign_key: Path | None) -> tuple[SigningKey | None, str]:
    """The key, or None and why there is none."""
    if sign_key is not None:
        try:
            return SigningKey.read(sign_key), ""
        except InvalidRequestError as err:
            raise InvalidRequestError("--sign-key", err.problem) from None
        except OSError as err:
            raise InvalidRequestError("--sign-key", f"{sign_key}: {err.strerror}") from None
    configured = Path(settings.audit_signing_key)
    if not configured.exists():
        return None, f"no key at {configured} ({SIGNING_KEY_SETTING}) and no --sign-key"
    try:
        return SigningKey.read(configured), ""
    except InvalidRequestError as err:
        return None, err.problem
    except OSError as err:
        return None, f"{configured}: {err.strerror} ({SIGNING_KEY_SETTING})"
