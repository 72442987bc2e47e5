"""Retry specs in configuration: overlaid on the code's, refused by the path of the bad field."""

from __future__ import annotations

import json
import logging
from datetime import timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from sagas import InvalidRequestError, Jitter, Phase
from sagas.engine import code_specs, configured_specs, overlay, read_retry_specs
from sagas.registry import built_in_registry
from sagas.transfer import TRANSFER_SAGA

DEFAULTS = code_specs(TRANSFER_SAGA)


def transfer(entries: dict[str, Any]) -> Any:
    return overlay(DEFAULTS, "transfer", {"transfer": entries})


def refusal(entries: dict[str, Any]) -> InvalidRequestError:
    with pytest.raises(InvalidRequestError) as caught:
        transfer(entries)
    return caught.value


def test_a_field_not_given_keeps_the_codes_value() -> None:
    specs = transfer({"credit": {"action": {"temporary": {"max_retries": 5}}}})

    credit = specs.of("credit", Phase.ACTION)
    assert credit.max_retries == 5
    assert credit.first_interval == TRANSFER_SAGA.step("credit").action_retry.first_interval
    assert specs.of("credit", Phase.COMPENSATION) == DEFAULTS.of("credit", Phase.COMPENSATION)
    assert specs.of("settle", Phase.ACTION) == DEFAULTS.of("settle", Phase.ACTION)


def test_classes_jitter_and_durations_are_read() -> None:
    specs = transfer(
        {
            "credit": {
                "action": {
                    "instant": {"first_interval": "200ms", "multiplier": 3, "max_retries": 2},
                    "temporary": {"first_interval": 2, "max_interval": "1m"},
                    "jitter": "full",
                }
            }
        }
    )

    credit = specs.of("credit", Phase.ACTION)
    assert credit.jitter is Jitter.FULL
    assert credit.first_interval == timedelta(seconds=2)
    assert credit.max_interval == timedelta(minutes=1)
    assert credit.instant is not None
    assert credit.instant.first_interval == timedelta(milliseconds=200)
    assert credit.instant.multiplier == Decimal(3)


def test_the_wait_on_the_infrastructure_can_be_tightened() -> None:
    """A compensation waits without limit by default; a configured max_retries ends it (it then
    parks as an exhausted compensation), and a shorter cap shortens every wait."""
    specs = transfer(
        {"credit": {"compensation": {"infrastructure": {"max_retries": 20, "max_interval": "10s"}}}}
    )

    wait = specs.of("credit", Phase.COMPENSATION).infrastructure_wait
    assert (wait.max_retries, wait.max_interval) == (20, timedelta(seconds=10))
    assert wait.first_interval == timedelta(seconds=1)
    assert not wait.exhausted_after(19)
    assert wait.exhausted_after(20)
    assert DEFAULTS.of("credit", Phase.COMPENSATION).infrastructure_wait.max_retries is None
    assert DEFAULTS.of("credit", Phase.COMPENSATION).infrastructure_wait.max_interval == (
        timedelta(minutes=1)
    )


@pytest.mark.parametrize(
    ("entries", "path"),
    [
        (
            {"credit": {"compensation": {"infrastructure": {"max_retries": 0}}}},
            "retry_specs.transfer.credit.compensation.infrastructure.max_retries",
        ),
        (
            {"credit": {"compensation": {"infrastructure": {"max_interval": "100ms"}}}},
            "retry_specs.transfer.credit.compensation.infrastructure.max_interval",
        ),
        (
            {"credit": {"action": {"instant": {"multiplier": 9}}}},
            "retry_specs.transfer.credit.action.instant.multiplier",
        ),
        (
            {"credit": {"action": {"instant": {"multiplier": "2.25"}}}},
            "retry_specs.transfer.credit.action.instant.multiplier",
        ),
        (
            {"credit": {"action": {"temporary": {"max_retries": 17}}}},
            "retry_specs.transfer.credit.action.temporary.max_retries",
        ),
        (
            {"credit": {"action": {"temporary": {"max_retries": 2.5}}}},
            "retry_specs.transfer.credit.action.temporary.max_retries",
        ),
        (
            {"credit": {"compensation": {"temporary": {"first_interval": "0s"}}}},
            "retry_specs.transfer.credit.compensation.temporary.first_interval",
        ),
        (
            {"credit": {"action": {"temporary": {"first_interval": "soon"}}}},
            "retry_specs.transfer.credit.action.temporary.first_interval",
        ),
        (
            {"credit": {"action": {"temporary": {"max_interval": "100ms"}}}},
            "retry_specs.transfer.credit.action.temporary.max_interval",
        ),
        (
            {"credit": {"action": {"temporary": {"tries": 3}}}},
            "retry_specs.transfer.credit.action.temporary.tries",
        ),
        ({"credit": {"action": {"permanent": {}}}}, "retry_specs.transfer.credit.action.permanent"),
        ({"credit": {"action": {"jitter": "half"}}}, "retry_specs.transfer.credit.action.jitter"),
        ({"credit": {"undo": {}}}, "retry_specs.transfer.credit.undo"),
        ({"refund": {}}, "retry_specs.transfer.refund"),
        ({"credit": []}, "retry_specs.transfer.credit"),
    ],
)
def test_a_bad_entry_is_refused_by_its_path(entries: dict[str, Any], path: str) -> None:
    assert refusal(entries).field == path


def write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_json_and_toml_files_read_alike(tmp_path: Path) -> None:
    entries = {"transfer": {"credit": {"action": {"temporary": {"max_retries": 4}}}}}
    toml = "[transfer.credit.action.temporary]\nmax_retries = 4\n"

    assert read_retry_specs(write(tmp_path, "r.json", json.dumps(entries))) == entries
    assert read_retry_specs(write(tmp_path, "r.toml", toml)) == entries
    assert read_retry_specs("") == {}


def test_an_unreadable_file_is_refused_naming_the_setting(tmp_path: Path) -> None:
    with pytest.raises(InvalidRequestError) as caught:
        read_retry_specs(write(tmp_path, "r.json", "{nope"))

    assert caught.value.field == "FUNDSAGA_RETRY_SPECS"


def test_an_unknown_saga_type_is_refused_by_name(tmp_path: Path) -> None:
    path = write(tmp_path, "r.json", json.dumps({"wire-out": {}}))

    with pytest.raises(InvalidRequestError) as caught:
        configured_specs(read_retry_specs(path), built_in_registry().definitions())

    assert caught.value.field == "retry_specs.wire-out"
    assert "transfer" in caught.value.problem


def test_the_practices_advice_is_logged_when_a_spec_is_loaded(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    entries = {"transfer": {"credit": {"action": {"temporary": {"multiplier": "1.2"}}}}}
    path = write(tmp_path, "r.json", json.dumps(entries))

    with caplog.at_level(logging.WARNING, logger="fundsaga.retry_specs"):
        specs = configured_specs(read_retry_specs(path), built_in_registry().definitions())

    assert specs["transfer"].of("credit", Phase.ACTION).multiplier == Decimal("1.2")
    assert "retry_specs.transfer.credit.action: multiplier 1.2 is outside the advised [1.5, 4]" in (
        caplog.text
    )
