"""The docs say what the code does: schema, example launch, steps, statuses, settings, faults."""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer.main
from typer.core import TyperGroup

from sagas import (
    APPROVE_UPDATE,
    PROPOSE_UPDATE,
    RETRY_UPDATE,
    VIEW_QUERY,
    OperatorAction,
    SagaStatus,
    Settings,
    parse_faults,
)
from sagas.cli import app
from sagas.client import saga_id
from sagas.demo import DEMO_FAULTS
from sagas.engine import FINGERPRINT_MEMO, SEARCH_ATTRIBUTE_KEYS, server_type_name
from sagas.registry import built_in_registry
from sagas.transfer import TRANSFER_SAGA, TransferRequest

DOCS = Path(__file__).resolve().parents[2] / "docs"
STEP_NAMES = [step.name for step in TRANSFER_SAGA.steps]


def read_doc(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def block_after(text: str, marker: str, lang: str) -> str:
    """The fenced block that directly follows an HTML comment marker."""
    match = re.search(re.escape(marker) + r"\n```" + lang + r"\n(.*?)\n```", text, re.DOTALL)
    assert match is not None, f"no ```{lang} block directly after {marker}"
    return match.group(1)


def code_blocks(text: str, lang: str) -> list[str]:
    return re.findall(r"```" + lang + r"\n(.*?)\n```", text, re.DOTALL)


def shell_commands(text: str, program: str) -> Iterator[list[str]]:
    """Every command of the doc's bash blocks that starts with `program`, split like a shell."""
    for block in code_blocks(text, "bash"):
        joined = block.replace("\\\n", " ")
        for line in joined.splitlines():
            words = shlex.split(line, comments=True)
            if words[: len(program.split())] == program.split():
                yield words


def flags(words: list[str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for flag, value in itertools.pairwise(words):
        if flag.startswith("--") and not value.startswith("--"):
            found.setdefault(flag, []).append(value)
    return found


def example_request() -> TransferRequest:
    example = block_after(read_doc("transfer-input.md"), "<!-- example:TransferRequest -->", "json")
    return TransferRequest.parse(json.loads(example))


def test_schema_block_is_the_models_schema() -> None:
    block = block_after(read_doc("transfer-input.md"), "<!-- schema:TransferRequest -->", "json")
    schema = TransferRequest.model_json_schema()
    assert json.loads(block) == schema
    assert block == json.dumps(schema, indent=2, sort_keys=True)


def test_example_request_is_valid() -> None:
    assert example_request().idempotency_key


def test_cli_start_example_launches_the_example_request() -> None:
    request = example_request()
    start, reuse = shell_commands(read_doc("transfer-input.md"), "temporal workflow start")
    given = flags(start)
    assert "--fail-existing" in start
    assert "--fail-existing" in reuse
    assert flags(reuse) == {**given, "--id-reuse-policy": ["AllowDuplicate"]}
    assert json.loads(given["--input"][0]) == request.model_dump(exclude_defaults=True)
    assert TransferRequest.parse(json.loads(given["--input"][0])) == request
    assert given["--type"] == [built_in_registry().get("transfer").workflow_type()]
    assert given["--task-queue"] == [Settings.model_fields["task_queue"].default]
    assert given["--workflow-id"] == [saga_id("transfer", request.idempotency_key)]
    assert given["--id-conflict-policy"] == ["UseExisting"]
    assert given["--id-reuse-policy"] == ["RejectDuplicate"]
    assert given["--memo"] == [f"{FINGERPRINT_MEMO}={json.dumps(request.fingerprint())}"]
    assert given["--static-summary"] == [request.summary()]
    assert sorted(given["--search-attribute"]) == [
        f'SagaStatus="{SagaStatus.RUNNING.value}"',
        'SagaType="transfer"',
    ]


def test_documented_fingerprint_recipe_gives_the_fingerprint() -> None:
    request = example_request()
    text = read_doc("transfer-input.md")
    (printf,) = shell_commands(text, "printf")
    canonical = printf[2]
    fields = request.model_dump(mode="json") | {"amount": request.money.amount_text()}
    assert canonical == json.dumps(fields, sort_keys=True, separators=(",", ":"))
    assert hashlib.sha256(canonical.encode()).hexdigest() == request.fingerprint()
    assert f"# {request.fingerprint()}" in text


def test_query_and_update_examples_use_the_real_names() -> None:
    assert f"--name {VIEW_QUERY}" in read_doc("transfer-input.md")
    updates = list(shell_commands(read_doc("operations.md"), "temporal workflow update execute"))
    assert sorted(flags(words)["--name"][0] for words in updates) == sorted(
        [RETRY_UPDATE, PROPOSE_UPDATE, APPROVE_UPDATE]
    )
    for words in updates:
        action = OperatorAction.model_validate_json(flags(words)["--input"][0])
        assert action.proof, words  # without one the worker refuses the update
        assert not action.operator, words  # ignored: the saga records the verified name


@pytest.mark.parametrize("step", STEP_NAMES)
def test_every_step_is_documented(step: str) -> None:
    operations = read_doc("operations.md")
    definition = TRANSFER_SAGA.step(step)
    assert f"`{step}`" in operations
    assert f"`{definition.action}`" in operations
    if definition.compensation is not None:
        assert f"`{definition.compensation}`" in operations


@pytest.mark.parametrize("status", list(SagaStatus))
def test_every_status_is_documented(status: SagaStatus) -> None:
    assert f"| `{status.value}` |" in read_doc("operations.md")


@pytest.mark.parametrize("name", sorted(Settings.model_fields))
def test_every_setting_is_documented_with_its_default(name: str) -> None:
    field = Settings.model_fields[name]
    row = re.search(rf"^\| `{field.alias}` \| (.*?) \|", read_doc("operations.md"), re.MULTILINE)
    assert row is not None, f"no row for {field.alias}"
    if field.default:
        assert row.group(1) == f"`{field.default}`"


def leaf_commands(command: object, prefix: str) -> Iterator[str]:
    if not isinstance(command, TyperGroup):
        yield prefix
        return
    for name, child in command.commands.items():
        yield from leaf_commands(child, f"{prefix} {name}")


@pytest.mark.parametrize("command", sorted(leaf_commands(typer.main.get_command(app), "fundsaga")))
def test_every_cli_command_has_an_example(command: str) -> None:
    assert re.search(rf"`(\w+=\S+ )*{command}( [^`]*)?`", read_doc("operations.md"))


def test_fault_examples_parse_and_name_real_steps() -> None:
    examples = block_after(read_doc("faults.md"), "<!-- faults:examples -->", "text")
    for line in examples.splitlines():
        plan = parse_faults(line)
        assert plan, line
        assert {rule.step for rule in plan.rules} <= set(STEP_NAMES), line


def test_faults_doc_names_the_demo_rule() -> None:
    assert parse_faults(DEMO_FAULTS)
    assert f"`{DEMO_FAULTS}`" in read_doc("faults.md")


def test_documented_search_attributes_are_the_engine_s() -> None:
    commands = shell_commands(read_doc("operations.md"), "temporal operator search-attribute")
    documented = sorted((flags(c)["--name"][0], flags(c)["--type"][0]) for c in commands)
    assert documented == sorted((k.name, server_type_name(k)) for k in SEARCH_ATTRIBUTE_KEYS)
