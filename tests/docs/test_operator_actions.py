"""docs/operator-actions.md is the contract another language follows, so it is read against the
code: every workflow, update, query and argument it names exists with the fields it lists, every
operator action the workers take is in it, its examples decode, its token is the one the worker
reads and its proposal digest is the worker's."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Any, TypeGuard, get_args

import jwt
import pytest
from pydantic import BaseModel
from temporalio import workflow

import workflows
from sagas import SagaWorkflow
from sagas.engine import (
    APPROVE_UPDATE,
    AUTHORIZATION_DETAILS_CLAIM,
    DEFAULT_MAX_TOKEN_LIFETIME,
    DEFAULT_ROLES_CLAIM,
    OPERATOR_ACTION_DETAIL,
    PROPOSE_UPDATE,
    RETRY_UPDATE,
    AuditKind,
    OperatorAct,
    OperatorBinding,
    OperatorRole,
    account_status_call,
    proposal_digest,
)
from sagas.foundations import Settings, error_class_by_name
from sagas.reconcile import StatementAct
from sagas.registry import workflow_type_name
from sagas.testing import kit_token
from workflows import (
    OperatorActionWorkflow,
    SagaRecoveryWorkflow,
    StatementActionWorkflow,
    TransferWorkflow,
)

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "operator-actions.md"
NODE_ACTIONS = ROOT / "examples" / "node-operator" / "src" / "actions.ts"
PROOF = "proof"
SAGA = TransferWorkflow
FILLED_BY_THE_SAGA = ("decision", "identity")
"""Fields of OperatorAction that the saga fills in: documented as not sent."""
RECOVERY = SagaRecoveryWorkflow


def doc() -> str:
    return DOC.read_text(encoding="utf-8")


def workflow_classes() -> list[type]:
    """Every workflow class of the `workflows` package: the saga types' and the engine's own."""
    found = [getattr(workflows, name) for name in workflows.__all__]
    return [c for c in found if isinstance(c, type) and workflow._Definition.from_class(c)]


def saga_type_classes() -> list[type]:
    return [c for c in workflow_classes() if issubclass(c, SagaWorkflow) and c is not RECOVERY]


@cache
def definitions() -> dict[str, workflow._Definition]:
    """Each workflow an operator acts on, by its type name: the transfer's stands for every
    saga type's (their updates are the engine's: checked below), then the engine's own."""
    classes = [SAGA] + [c for c in workflow_classes() if c not in saga_type_classes()]
    return {workflow_type_name(c): workflow._Definition.must_from_class(c) for c in classes}


def nested_models(model: type[BaseModel]) -> list[type[BaseModel]]:
    """`model` and the models its fields hold, depth first, but for the fields the saga fills."""
    found = [model]
    for name, field in model.model_fields.items():
        if name in FILLED_BY_THE_SAGA:
            continue
        for part in (field.annotation, *get_args(field.annotation)):
            if isinstance(part, type) and issubclass(part, BaseModel):
                found += nested_models(part)
    return found


@cache
def argument_models() -> dict[str, type[BaseModel]]:
    """Every model an operator sends: the argument of each start and update that carries a
    proof, and the models inside them."""
    models: dict[str, type[BaseModel]] = {}
    for model in proof_carriers().values():
        models |= {m.__name__: m for m in nested_models(model)}
    return models


@cache
def proof_carriers() -> dict[tuple[str, str], type[BaseModel]]:
    """(workflow type, "start" or the update's name) of every operator action: each start and
    update whose argument carries a proof, with that argument's model."""
    return {
        (name, how): model
        for name, definition in definitions().items()
        for how, model in carried(definition).items()
    }


def carried(definition: workflow._Definition) -> dict[str, type[BaseModel]]:
    """The workflow's inputs that carry a proof: "start" (its run's argument) and the names of
    its updates, each with its argument's model."""
    sent: list[tuple[str | None, Sequence[type] | None]] = [("start", definition.arg_types)]
    sent += [(update, handler.arg_types) for update, handler in definition.updates.items()]
    found: dict[str, type[BaseModel]] = {}
    for how, arg_types in sent:
        model = arg_types[0] if arg_types else None
        if how and _carries_proof(model):
            found[how] = model
    return found


def _carries_proof(model: object) -> TypeGuard[type[BaseModel]]:
    return isinstance(model, type) and issubclass(model, BaseModel) and PROOF in model.model_fields


def table_after(marker: str) -> list[list[str]]:
    """The rows (cells stripped) of the first table after `marker`, header left out."""
    text = doc()
    lines = text[text.index(marker) + len(marker) :].splitlines()
    first = next(i for i, line in enumerate(lines) if line.startswith("|"))
    rows = []
    for line in lines[first + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    assert rows, f"no table after {marker}"
    return rows


def ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def json_after(marker: str) -> Any:
    match = re.search(re.escape(marker) + r"\n```json\n(.*?)\n```", doc(), re.DOTALL)
    assert match is not None, f"no ```json block directly after {marker}"
    return json.loads(match.group(1))


def actions() -> list[dict[str, Any]]:
    rows = table_after("<!-- actions -->")
    return [
        {
            "workflow": ticked(workflow_cell)[0],
            "sent": ["start"] if sent == "start" else ticked(sent),
            "argument": ticked(argument)[0],
            "role": ticked(role),
            "token_actions": ticked(token_actions),
        }
        for _, workflow_cell, sent, argument, role, token_actions, *_ in rows
    ]


def test_each_action_is_a_workflow_start_or_update_taking_the_argument_named() -> None:
    for action in actions():
        for how in action["sent"]:
            model = proof_carriers().get((action["workflow"], how))
            assert model is not None, f"{action}: no start or update {how} carrying a proof"
            assert model.__name__ == action["argument"], action
        assert {OperatorRole(r) for r in action["role"]}, action
        known = {a.value for a in OperatorAct} | {k.value for k in AuditKind}
        assert set(action["token_actions"]) <= known, action


def test_every_operator_action_of_the_workers_is_documented() -> None:
    documented = {(a["workflow"], how) for a in actions() for how in a["sent"]}
    assert documented == set(proof_carriers())


@pytest.mark.parametrize("saga_class", saga_type_classes(), ids=workflow_type_name)
def test_every_saga_type_takes_the_operator_actions_the_transfer_takes(saga_class: type) -> None:
    def taken(cls: type) -> dict[str, type[BaseModel]]:
        return carried(workflow._Definition.must_from_class(cls))

    assert taken(saga_class) == taken(SAGA)
    assert saga_type_classes()


def test_account_and_statement_actions_are_bound_to_the_kinds_the_worker_takes() -> None:
    bound: dict[str, set[str]] = {a["workflow"]: set() for a in actions()}
    for action in actions():
        bound[action["workflow"]] |= set(action["token_actions"])
    status_kinds: set[str] = set()
    for kind in AuditKind:
        try:
            account_status_call(kind, "acc-a")
        except KeyError:
            continue
        status_kinds.add(kind.value)
    account = workflow_type_name(OperatorActionWorkflow)
    statement = workflow_type_name(StatementActionWorkflow)
    assert bound[account] == status_kinds | {AuditKind.ACCOUNT_LIMIT_SET.value}
    assert bound[statement] == {act.audit_kind.value for act in StatementAct}


@pytest.mark.parametrize("name", sorted(argument_models()))
def test_each_argument_s_fields_are_listed_as_the_model_has_them(name: str) -> None:
    rows = table_after(f"<!-- fields:{name} -->")
    documented = [ticked(row[0])[0] for row in rows]
    assert sorted(documented) == sorted(argument_models()[name].model_fields)
    for row in rows:
        if ticked(row[0])[0] in FILLED_BY_THE_SAGA:
            assert row[1] == "not sent", row


def examples() -> list[str]:
    return re.findall(r"<!-- example:(\w+) -->", doc())


def unknown_keys(value: Any, model: type[BaseModel]) -> list[str]:
    """The keys of `value` that `model` (or a model inside it) has no field for: the models
    ignore them, so an example that held one would teach a field that is dropped."""
    unknown = [key for key in value if key not in model.model_fields]
    for key, inner in value.items():
        annotation = model.model_fields[key].annotation if key in model.model_fields else None
        for part in (annotation, *get_args(annotation)):
            if isinstance(inner, dict) and isinstance(part, type) and issubclass(part, BaseModel):
                unknown += [f"{key}.{k}" for k in unknown_keys(inner, part)]
    return unknown


@pytest.mark.parametrize("name", [n for n in examples() if n in argument_models()])
def test_each_example_argument_decodes_with_no_field_the_model_lacks(name: str) -> None:
    example = json_after(f"<!-- example:{name} -->")
    model = argument_models()[name]
    assert unknown_keys(example, model) == []
    decoded = model.model_validate(example)
    assert decoded.model_dump(exclude_unset=True) == example
    refusal = getattr(decoded, "refusal", None)
    assert refusal is None or refusal() is None
    upload = getattr(decoded, "upload", None)
    if upload is not None:
        assert upload.content()
        assert upload.mapping() is not None


def test_every_example_is_checked() -> None:
    assert set(examples()) - set(argument_models()) == {"header", "claims", "digest"}


def test_the_token_is_the_one_the_worker_reads() -> None:
    header = json_after("<!-- example:header -->")
    claims = json_after("<!-- example:claims -->")
    (detail,) = claims[AUTHORIZATION_DETAILS_CLAIM]
    binding = OperatorBinding(
        workflow_id=detail["workflow_id"], action=detail["action"], proposal=detail["proposal"]
    )
    kit = kit_token("ana", binding)

    assert header.keys() == jwt.get_unverified_header(kit).keys()
    assert claims.keys() == jwt.decode(kit, options={"verify_signature": False}).keys()
    assert detail == binding.authorization_detail()
    assert detail["type"] == OPERATOR_ACTION_DETAIL
    assert binding.action in {a.value for a in OperatorAct}
    assert {OperatorRole(r) for r in claims[DEFAULT_ROLES_CLAIM]}
    assert 0 < claims["exp"] - claims["iat"] <= DEFAULT_MAX_TOKEN_LIFETIME.total_seconds()


def test_the_digest_example_is_the_worker_s_digest() -> None:
    workflow_id, proposer, facts = json_after("<!-- example:digest -->")
    text = doc()
    block = re.search(r"<!-- example:digest -->\n```json\n(.*?)\n```", text, re.DOTALL)
    assert block is not None
    assert block.group(1) == json.dumps(
        [workflow_id, proposer, facts], sort_keys=True, separators=(",", ":")
    )
    digest = re.search(r'"proposal": "([0-9a-f]{64})"', text[block.end() :])
    assert digest is not None
    assert digest.group(1) == proposal_digest(workflow_id, proposer, facts)


def test_the_queries_named_exist() -> None:
    queries = {q for d in definitions().values() for q in d.queries}
    named = re.findall(r"query `(\w+)`", doc())
    assert named
    assert set(named) <= queries


def test_settings_named_are_the_worker_s_with_their_defaults() -> None:
    aliases = {f.alias: f.default for f in Settings.model_fields.values() if f.alias}
    named = set(re.findall(r"\bFUNDSAGA_[A-Z_]+[A-Z]", doc()))
    assert named <= aliases.keys()
    for row in table_after("### How the worker trusts a token"):
        setting, default = ticked(row[0])[0], row[1]
        expected = aliases[setting]
        assert default == ("empty" if expected == "" else f"`{expected}`"), setting


def test_every_refusal_named_is_an_error_class_the_worker_raises() -> None:
    named = set(re.findall(r"`(\w+Error)`", doc())) - {"WorkflowUpdateFailedError"}
    assert {n for n in named if error_class_by_name(n) is None} == {"RuntimeError"}


def test_the_node_example_sends_the_updates_the_saga_takes() -> None:
    sent = dict(re.findall(r"export const (\w+_UPDATE) = '(\w+)';", NODE_ACTIONS.read_text()))
    assert sent == {
        "RETRY_UPDATE": RETRY_UPDATE,
        "PROPOSE_UPDATE": PROPOSE_UPDATE,
        "APPROVE_UPDATE": APPROVE_UPDATE,
    }
