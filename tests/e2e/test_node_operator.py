"""The Node example (examples/node-operator) acts on a parked saga through Temporal alone, as
docs/operator-actions.md says another language does: two operators resolve it, and the
proposer's token sent again is refused without a trace in the history.

`npm ci` installs the example's locked packages into a copy of it under the test's temporary
directory (npm's cache is the example's `.npm-cache/`). Without `node` and `npm` the tests are
skipped, except in CI (CI=true), where they fail: `.ci/run` installs Debian's nodejs and npm.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import shutil
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from temporalio.api.enums.v1 import EventType
from temporalio.testing import WorkflowEnvironment

from sagas import SagaStatus
from sagas.audit import AuditStore
from sagas.client import saga_id
from sagas.engine import (
    FundingStatus,
    FundingView,
    OperatorRole,
    ResolutionView,
    VerifiedOperator,
    funding_proposal,
    resolution_proposal,
)
from sagas.ledger import Ledger
from sagas.testing import dev_identity, new_task_queue
from tests.e2e.test_operator import PARKING_FAULTS, fast_client, park_one, worker

pytestmark = pytest.mark.slow

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "node-operator"
SOURCES = ("package.json", "package-lock.json", "tsconfig.json", ".npmrc", "src")
INSTALL_TIMEOUT = 240
RUN_TIMEOUT = 120


def node_tools() -> tuple[str, str]:
    """`node` and `npm`; skipped without them, a failure in CI."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is not None and npm is not None:
        return node, npm
    message = "node and npm are not installed (Debian's packages nodejs and npm)"
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{message}; .ci/run installs them before the tests")
    pytest.skip(f"{message}: the Node example is not run")


def run(argv: list[str], cwd: Path, timeout: float) -> None:
    done = subprocess.run(
        argv, cwd=cwd, env=npm_environment(), capture_output=True, text=True, timeout=timeout
    )
    assert done.returncode == 0, f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr}"


def npm_environment() -> dict[str, str]:
    """This environment, with npm's cache in the example and nothing read from the user's npm
    settings beyond the registry; the example's own .npmrc applies."""
    return os.environ | {
        "npm_config_cache": str(EXAMPLE / ".npm-cache"),
        "npm_config_update_notifier": "false",
        "npm_config_fund": "false",
        "npm_config_audit": "false",
    }


@pytest.fixture(scope="module")
def example(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The example, installed from its lock file (`npm ci`, no install scripts) and compiled."""
    node, npm = node_tools()
    work = tmp_path_factory.mktemp("node-operator")
    for name in SOURCES:
        source = EXAMPLE / name
        if source.is_dir():
            shutil.copytree(source, work / name)
        else:
            shutil.copy2(source, work / name)
    run([npm, "ci", "--ignore-scripts"], work, INSTALL_TIMEOUT)
    run([node, str(work / "node_modules" / "typescript" / "bin" / "tsc"), "-p", "."], work, 120)
    return work


async def node(example: Path, script: str, *args: str, env: dict[str, str], stdin: str = "") -> Any:
    """Run the compiled `script` with `args`; its JSON output once it exited 0."""
    process = await asyncio.create_subprocess_exec(
        node_tools()[0],
        str(example / "dist" / script),
        *args,
        cwd=example,
        env=env,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(stdin.encode()), RUN_TIMEOUT)
    assert process.returncode == 0, f"{script} exited {process.returncode}:\n{out!r}\n{err!r}"
    return json.loads(out)


def service_environment(env: WorkflowEnvironment) -> dict[str, str]:
    """What the Node service is told: Temporal's address and namespace, and the identity
    provider the worker trusts (the kit's development provider, with its issuer and audience)."""
    outside = {k: v for k, v in os.environ.items() if not k.startswith(("FUNDSAGA_", "TEMPORAL_"))}
    return outside | {
        "TEMPORAL_ADDRESS": env.client.service_client.config.target_host,
        "TEMPORAL_NAMESPACE": env.client.namespace,
        "FUNDSAGA_DEV_IDENTITY": str(dev_identity().directory),
    }


async def test_two_node_operators_resolve_a_parked_saga_and_a_replayed_token_is_refused(
    example: Path, dev_env: WorkflowEnvironment, funded: Ledger, audit_store: AuditStore
) -> None:
    queue = new_task_queue()
    client = fast_client(dev_env, queue, funded)
    async with worker(dev_env, queue, funded, audit_store, PARKING_FAULTS):
        key = await park_one(client)
        workflow_id = saga_id("transfer", key)
        report = await node(
            example, "resolve.js", workflow_id, "ana", "bo", env=service_environment(dev_env)
        )
        outcome = await client.saga("transfer", key).outcome()
    history = await dev_env.client.get_workflow_handle(workflow_id).fetch_history()

    assert report["proposal_id"] == "p1"
    replayed, own = report["refused"]
    assert replayed["type"] == "OperatorRefusedError"
    assert replayed["message"] == "access token refused: it was already used for an action"
    assert own["type"] == "SameOperatorError"
    assert own["message"] == "ana proposed p1: another operator approves"
    assert outcome.status is SagaStatus.RESOLVED
    assert [
        (a.decision, a.operator, a.identity and (a.identity.issuer, a.identity.subject))
        for a in outcome.operator_actions
    ] == [("propose", "ana", ("fundsaga-dev", "ana")), ("approve", "bo", ("fundsaga-dev", "bo"))]
    accepted = [
        event.workflow_execution_update_accepted_event_attributes.accepted_request.input.name
        for event in history.events
        if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED
    ]
    assert accepted == ["propose_resolution", "approve_resolution"]
    kinds = [r.kind for r in audit_store.records(saga_id=workflow_id)]
    assert kinds == ["needs_attention", "resolution_proposed", "resolution_approved", "terminal"]


def proposer(token: str) -> VerifiedOperator:
    return VerifiedOperator(
        issuer="https://id.example",
        subject="ana",
        name="ana",
        roles=[OperatorRole.OPERATOR],
        token_id="t1",
        token_sha256=hashlib.sha256(token.encode()).hexdigest(),
        expires_at=datetime(2026, 11, 28, 12, tzinfo=UTC),
    )


async def test_the_node_proposal_digest_is_the_worker_s(example: Path) -> None:
    """The digest an approval of a funding or break resolution is bound to, as the example
    computes it from the view the query returns, for text that JSON writers escape apart."""
    note = 'Café ✓ 😀 "quoted" back\\slash\n\ttab \x7f \x01 \u2028 €'
    views: list[FundingView | ResolutionView] = [
        FundingView(
            funding_id="funding-acc-ü-1",
            account_id="acc-ü",
            amount="1000.00",
            currency="EUR",
            status=FundingStatus.AWAITING_APPROVAL,
            proposed_by=proposer("token-one"),
        ),
        FundingView(
            funding_id="funding-none",
            account_id="acc-a",
            amount="1.00",
            currency="EUR",
            status=FundingStatus.AWAITING_APPROVAL,
        ),
        ResolutionView.model_validate(
            {
                "resolution_id": "funding-break-7",
                "break_id": 7,
                "note": note,
                "status": "AWAITING_APPROVAL",
                "proposed_by": proposer("token-two").model_dump(mode="json"),
            }
        ),
        ResolutionView.model_validate(
            {
                "resolution_id": "funding-break-8",
                "break_id": 8,
                "note": "bank fee",
                "adjustment": {"account_id": "acc-a", "amount": "-0.01", "currency": "EUR"},
                "status": "AWAITING_APPROVAL",
                "proposed_by": proposer("token-three").model_dump(mode="json"),
            }
        ),
    ]
    cases = [
        {
            "kind": "funding" if isinstance(v, FundingView) else "resolution",
            "view": v.model_dump(mode="json"),
        }
        for v in views
    ]
    expected = [
        funding_proposal(v) if isinstance(v, FundingView) else resolution_proposal(v) for v in views
    ]

    digests = await node(example, "digest.js", env=dict(os.environ), stdin=json.dumps(cases))

    assert expected[1] == ""
    assert digests == expected
