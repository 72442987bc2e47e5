"""The worker's reconciliation rules: the matching policy, the matching rules file and the
statement size limits, as the deployment configures them, never as an importing operator's
environment says."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field

from pydantic import JsonValue

from sagas.foundations import Settings
from sagas.reconcile.formats import DEFAULT_MAX_BYTES, DEFAULT_MAX_LINES, refuse_size
from sagas.reconcile.matching._matching_rules import MatchingRules
from sagas.reconcile.matching._policy import ReconcilePolicy, policy_from
from sagas.reconcile.matching._rules_file import load_rules


@dataclass(frozen=True, kw_only=True)
class StatementRules:
    policy: ReconcilePolicy = field(default_factory=ReconcilePolicy)
    max_bytes: int = DEFAULT_MAX_BYTES
    """FUNDSAGA_STATEMENT_MAX_BYTES: a larger file is refused unread."""
    max_lines: int = DEFAULT_MAX_LINES
    """FUNDSAGA_STATEMENT_MAX_LINES: a file with more entries is refused, nothing kept."""
    matching: MatchingRules | None = None
    """FUNDSAGA_RECONCILE_RULES: the file's rules above the policy's default rule; None: the
    policy's rule alone."""

    @property
    def matching_rules(self) -> MatchingRules:
        """What judges each line: the file's rules, else the policy's as the one rule."""
        return self.matching or MatchingRules.of(self.policy)

    @classmethod
    def of(cls, settings: Settings) -> StatementRules:
        """The rules the worker's settings (FUNDSAGA_RECONCILE_*, FUNDSAGA_STATEMENT_*) set; the
        rules file is read and checked whole here, when the worker starts."""
        policy = policy_from(
            date_tolerance_days=settings.reconcile_date_tolerance_days,
            amount_tolerance=settings.reconcile_amount_tolerance,
            cutoff=settings.reconcile_cutoff,
            grace_hours=settings.reconcile_grace_hours,
            fees=settings.reconcile_fees,
        )
        path = settings.reconcile_rules
        return cls(
            policy=policy,
            matching=load_rules(path, policy) if path else None,
            max_bytes=settings.statement_max_bytes,
            max_lines=settings.statement_max_lines,
        )

    def check_size(self, content: bytes) -> None:
        """Refuse a file over the byte limit, naming it, before anything reads it."""
        refuse_size(len(content), self.max_bytes)


def policy_facts(policy: ReconcilePolicy) -> dict[str, JsonValue]:
    """The policy as a run's audit record states it, with the SHA-256 of its canonical JSON."""
    stated: dict[str, JsonValue] = {
        "date_tolerance_days": policy.date_tolerance.days,
        "amount_tolerance_minor": policy.amount_tolerance_minor,
        "cutoff": policy.cutoff.isoformat(),
        "grace_seconds": int(policy.grace.total_seconds()),
        "fees": {code: fee.amount_text() for code, fee in sorted(policy.fees.items())},
    }
    canonical = json.dumps(stated, sort_keys=True, separators=(",", ":")).encode()
    return {"policy": stated, "policy_sha256": hashlib.sha256(canonical).hexdigest()}
