"""Configuration from the environment (and `.env`), validated when read."""

from __future__ import annotations

import getpass
import re
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from sagas.foundations._db import (
    MAX_TIMEOUT_SECONDS,
    SCAN_STATEMENT_TIMEOUT,
    STATEMENT_TIMEOUT,
    DatabaseTimeouts,
)
from sagas.foundations._errors import InvalidRequestError
from sagas.foundations._validation import invalid_request_from

DEFAULT_HOME = Path(".fundsaga")
STATEMENT_BYTES_CEILING = 1_500_000
"""The largest FUNDSAGA_STATEMENT_MAX_BYTES: a file this size, base64 in a JSON payload, stays
under Temporal's default 2 MiB payload limit."""


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    temporal_address: str = Field("localhost:7233", alias="TEMPORAL_ADDRESS")
    temporal_namespace: str = Field("default", alias="TEMPORAL_NAMESPACE")
    temporal_connect_timeout: float = Field(3.0, alias="FUNDSAGA_TEMPORAL_CONNECT_TIMEOUT", gt=0)
    """Seconds a client waits for Temporal to answer before it gives up with one line."""
    task_queue: str = Field("fundsaga", alias="FUNDSAGA_TASK_QUEUE")
    shutdown_grace_seconds: float = Field(
        5.0, alias="FUNDSAGA_SHUTDOWN_GRACE_SECONDS", gt=0, le=600
    )
    """Seconds a stopping worker gives its running steps to finish before it cancels them; a
    process exits at most this plus 5 s after SIGTERM, logging the work it left."""
    database_url: str = Field(
        f"sqlite:///{DEFAULT_HOME / 'fundsaga.db'}", alias="FUNDSAGA_DATABASE_URL"
    )
    db_lock_timeout: float = Field(
        DatabaseTimeouts.lock, alias="FUNDSAGA_DB_LOCK_TIMEOUT", gt=0, le=MAX_TIMEOUT_SECONDS
    )
    """Seconds a PostgreSQL statement waits for a lock another session holds."""
    db_statement_timeout: float = Field(
        STATEMENT_TIMEOUT,
        alias="FUNDSAGA_DB_STATEMENT_TIMEOUT",
        gt=0,
        le=MAX_TIMEOUT_SECONDS,
    )
    """Seconds a PostgreSQL statement may run, except in the commands that read whole tables."""
    db_scan_statement_timeout: float = Field(
        SCAN_STATEMENT_TIMEOUT,
        alias="FUNDSAGA_DB_SCAN_STATEMENT_TIMEOUT",
        gt=0,
        le=MAX_TIMEOUT_SECONDS,
    )
    """Seconds a PostgreSQL statement may run in the commands that read whole tables: the
    verifiers and the collector."""
    db_idle_in_transaction_timeout: float = Field(
        DatabaseTimeouts.idle_in_transaction,
        alias="FUNDSAGA_DB_IDLE_IN_TRANSACTION_TIMEOUT",
        gt=0,
        le=MAX_TIMEOUT_SECONDS,
    )
    """Seconds PostgreSQL keeps a session whose open transaction waits for its client."""
    db_busy_timeout: float = Field(
        DatabaseTimeouts.busy, alias="FUNDSAGA_DB_BUSY_TIMEOUT", gt=0, le=MAX_TIMEOUT_SECONDS
    )
    """Seconds an SQLite writer waits for another's write lock."""
    audit_store: str = Field(f"dir:{DEFAULT_HOME / 'audit'}", alias="FUNDSAGA_AUDIT_STORE")
    audit_completed: bool = Field(False, alias="FUNDSAGA_AUDIT_COMPLETED")
    faults: str = Field("", alias="FUNDSAGA_FAULTS")
    step_mode: Literal["activity", "local"] = Field("activity", alias="FUNDSAGA_STEP_MODE")
    """How transfers this client starts run their steps: regular or local activities."""
    audit_signing_key: str = Field(
        str(DEFAULT_HOME / "audit-signing.key"), alias="FUNDSAGA_AUDIT_SIGNING_KEY"
    )
    """The worker's Ed25519 private key (PEM); its public key is the `.pub` beside it."""
    audit_anchor_store: str = Field(
        f"dir:{DEFAULT_HOME / 'audit-anchors'}", alias="FUNDSAGA_AUDIT_ANCHOR_STORE"
    )
    """Where signed checkpoints of the audit chain go: apart from the audit store."""
    audit_anchor_every: int = Field(100, alias="FUNDSAGA_AUDIT_ANCHOR_EVERY", ge=1)
    """Anchor the audit chain every this many records."""
    audit_anchor_minutes: int = Field(10, alias="FUNDSAGA_AUDIT_ANCHOR_MINUTES", ge=0)
    """Workers keep a Temporal schedule that anchors the chain this often; 0 turns it off."""
    audit_public_keys: str = Field("", alias="FUNDSAGA_AUDIT_PUBLIC_KEYS")
    """Comma-separated public key files (PEM) verifiers trust, besides the signing key's own."""
    retry_specs: str = Field("", alias="FUNDSAGA_RETRY_SPECS")
    """A JSON or TOML file of retry specs per saga type, step, phase and class; read by workers
    when each saga starts."""
    saga_modules: str = Field("", alias="FUNDSAGA_SAGA_MODULES")
    """Comma-separated modules whose `SAGA_TYPES` workers and clients register."""
    operator: str = Field("", alias="FUNDSAGA_OPERATOR", max_length=200)
    """With the development identity provider only: whom its tokens name; empty: the
    operating-system user."""
    operator_token: SecretStr = Field(SecretStr(""), alias="FUNDSAGA_OPERATOR_TOKEN")
    """The operator's access token from the organisation's identity provider: the proof of who
    this client's operator actions are by."""
    operator_jwks: str = Field("", alias="FUNDSAGA_OPERATOR_JWKS")
    """Workers: the signing keys (JWKS URL, or a file) of the identity provider whose access
    tokens prove who an operator action is by; empty: every operator action is refused."""
    operator_audience: str = Field("", alias="FUNDSAGA_OPERATOR_AUDIENCE")
    """The audience (`aud`) operator access tokens must name."""
    operator_issuer: str = Field("", alias="FUNDSAGA_OPERATOR_ISSUER")
    """The issuer (`iss`) operator access tokens must name."""
    operator_roles_claim: str = Field("fundsaga_roles", alias="FUNDSAGA_OPERATOR_ROLES_CLAIM")
    """The claim of an operator access token that lists its roles (operator, approver)."""
    operator_token_max_lifetime: int = Field(
        900, alias="FUNDSAGA_OPERATOR_TOKEN_MAX_LIFETIME", ge=1, le=86400
    )
    """Seconds: workers refuse an operator token valid for longer (exp - iat, or exp - now
    without iat)."""
    dev_identity: str = Field(str(DEFAULT_HOME / "dev-identity"), alias="FUNDSAGA_DEV_IDENTITY")
    """The development identity provider's directory (`fundsaga dev` makes it): its signing
    key mints tokens for FUNDSAGA_OPERATOR when no FUNDSAGA_OPERATOR_TOKEN is set."""
    reconcile_date_tolerance_days: int = Field(
        2, alias="FUNDSAGA_RECONCILE_DATE_TOLERANCE_DAYS", ge=0, le=31
    )
    """How many days a statement line's value date may be from its movement's booking when it
    is matched by amount (a line that names no reference)."""
    reconcile_amount_tolerance: int = Field(0, alias="FUNDSAGA_RECONCILE_AMOUNT_TOLERANCE", ge=0)
    """Minor units a line's amount may differ from its movement's before it is a break."""
    reconcile_cutoff: str = Field("23:59:59", alias="FUNDSAGA_RECONCILE_CUTOFF")
    """The rail's daily cut-off, UTC (HH:MM[:SS]): later movements are on the next day's
    statement."""
    reconcile_grace_hours: int = Field(24, alias="FUNDSAGA_RECONCILE_GRACE_HOURS", ge=0)
    """Hours after the rail books a movement that complete statements may still lack it before
    it is a break."""
    reconcile_fees: str = Field("", alias="FUNDSAGA_RECONCILE_FEES")
    """The fee agreed with the rail per movement, `EUR=0.25,USD=0.30`; empty: none."""
    reconcile_rules: str = Field("", alias="FUNDSAGA_RECONCILE_RULES")
    """Workers: the matching rules file (TOML; docs/reconciliation.md, "Matching rules"); empty:
    the five settings above are the one rule."""
    statement_max_bytes: int = Field(
        1_048_576, alias="FUNDSAGA_STATEMENT_MAX_BYTES", ge=1, le=STATEMENT_BYTES_CEILING
    )
    """The largest statement file `reconcile import` sends and the worker reads; the file
    travels in the action's Temporal payload, so the ceiling keeps it under Temporal's limit."""
    statement_max_lines: int = Field(10_000, alias="FUNDSAGA_STATEMENT_MAX_LINES", ge=1)
    """The most entries a statement file may hold; the worker refuses a longer one unread."""
    provider_url: str = Field("http://127.0.0.1:8470", alias="FUNDSAGA_PROVIDER_URL")
    """Base URL of the payment provider the external payout submits to."""
    provider_timeout: float = Field(5.0, alias="FUNDSAGA_PROVIDER_TIMEOUT", gt=0)
    """Seconds a payout step waits for the provider's answer."""
    webhook_url: str = Field("", alias="FUNDSAGA_WEBHOOK_URL")
    """Base URL at which the provider reaches `fundsaga webhooks`; empty: no callbacks."""
    webhook_secrets: SecretStr = Field(SecretStr(""), alias="FUNDSAGA_WEBHOOK_SECRETS")
    """`SAGA_TYPE=SECRET`, comma-separated: the secret that the provider calling back sagas of
    that type signs its callbacks with (HMAC-SHA256); a type without one gets no callback."""
    webhook_max_body: int = Field(65_536, alias="FUNDSAGA_WEBHOOK_MAX_BODY", gt=0, le=1_048_576)
    """The largest callback body the webhook receiver reads, in bytes."""
    metrics_address: str = Field("", alias="FUNDSAGA_METRICS_ADDRESS", pattern=r"^(|\S+:\d{1,5})$")
    """host:port where a worker serves Prometheus metrics at /metrics; empty: no metrics."""
    payload_keys: SecretStr = Field(SecretStr(""), alias="FUNDSAGA_PAYLOAD_KEYS")
    """`ID=BASE64` AES-256 keys, comma-separated: the first encrypts every payload sent to
    Temporal, all decrypt; empty: payloads are plain."""
    codec_server_token: SecretStr = Field(SecretStr(""), alias="FUNDSAGA_CODEC_SERVER_TOKEN")
    """The bearer token `fundsaga codec-server` asks of every caller."""
    codec_server_jwks_url: str = Field("", alias="FUNDSAGA_CODEC_SERVER_JWKS_URL")
    """The identity provider's signing keys (JWKS): the codec server then also accepts the
    access token the Temporal UI passes on for a signed-in operator; empty: the token only."""
    codec_server_audience: str = Field("", alias="FUNDSAGA_CODEC_SERVER_AUDIENCE")
    """The audience (`aud`) those access tokens must name."""
    codec_server_issuer: str = Field("", alias="FUNDSAGA_CODEC_SERVER_ISSUER")
    """The issuer (`iss`) those access tokens must name."""
    codec_server_origins: str = Field(
        "http://localhost:8233", alias="FUNDSAGA_CODEC_SERVER_ORIGINS"
    )
    """Comma-separated browser origins (the Temporal UI's) the codec server allows (CORS)."""
    collector_seconds: int = Field(30, alias="FUNDSAGA_COLLECTOR_SECONDS", ge=1, le=3600)
    """How often `fundsaga collector` asks Temporal's visibility for its gauges."""
    ledger_check_seconds: int = Field(300, alias="FUNDSAGA_LEDGER_CHECK_SECONDS", ge=0)
    """How often `fundsaga collector` checks the ledger's invariants; 0: never."""
    otlp_endpoint: str = Field("", alias="FUNDSAGA_OTLP_ENDPOINT")
    """Base URL of an OTLP/HTTP collector that clients and workers send traces to (at
    /v1/traces); empty: no tracing."""
    log_format: Literal["text", "json"] = Field("text", alias="FUNDSAGA_LOG_FORMAT")
    """How the `fundsaga` process writes its log lines on stderr: text, or one JSON object a
    line."""

    @field_validator("otlp_endpoint")
    @classmethod
    def _an_http_url(cls, value: str) -> str:
        if value and not re.fullmatch(r"https?://[^\s/]+(/\S*)?", value):
            raise InvalidRequestError(
                "FUNDSAGA_OTLP_ENDPOINT", "must be an http:// or https:// URL, or empty"
            )
        return value

    def database_timeouts(self, *, scans: bool = False) -> DatabaseTimeouts:
        """The bounds of this process's database sessions; `scans`: of a command that reads
        whole tables, whose statements are long by nature."""
        return DatabaseTimeouts(
            lock=self.db_lock_timeout,
            statement=self.db_scan_statement_timeout if scans else self.db_statement_timeout,
            idle_in_transaction=self.db_idle_in_transaction_timeout,
            busy=self.db_busy_timeout,
        )

    @property
    def audit_public_key_paths(self) -> list[Path]:
        return [Path(name.strip()) for name in self.audit_public_keys.split(",") if name.strip()]

    @property
    def codec_server_origin_list(self) -> list[str]:
        return [o.strip() for o in self.codec_server_origins.split(",") if o.strip()]

    @property
    def saga_module_names(self) -> list[str]:
        return [name.strip() for name in self.saga_modules.split(",") if name.strip()]


def os_user() -> str:
    """The operating-system user running this process."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        raise InvalidRequestError(
            "FUNDSAGA_OPERATOR", "not set, and the operating-system user is unknown"
        ) from None


def load_settings() -> Settings:
    """The settings, or InvalidRequestError naming the variable that holds a bad value."""
    try:
        return Settings()
    except ValidationError as err:
        raise invalid_request_from(err) from None
