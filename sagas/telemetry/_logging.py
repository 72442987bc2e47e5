"""The `fundsaga` process's log lines: text by default, one JSON object a line by setting.

A JSON line carries the saga's fields when the record knows them: the SDK's activity and
workflow loggers attach the run's ids and attempt (`temporal_activity`, `temporal_workflow`),
and the engine passes the saga type, step, phase and error class as `extra`.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from temporalio import activity, workflow

TEXT_FORMAT = "%(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    """One JSON object a record: time (UTC), level, logger, message, then each saga field the
    record knows, and the exception's traceback if any; a field the record lacks is left out.

    The saga id is the workflow id; the attempt is the activity's on a step's lines.
    """

    def format(self, record: logging.LogRecord) -> str:
        run = _run_fields(record)
        line: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            "saga_id": run.get("workflow_id"),
            "saga_type": getattr(record, "saga_type", None),
            "step": getattr(record, "step", None),
            "phase": getattr(record, "phase", None),
            "attempt": run.get("attempt"),
            "error_class": getattr(record, "error_class", None),
            "workflow_id": run.get("workflow_id"),
            "run_id": run.get("run_id"),
            "task_queue": run.get("task_queue"),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return json.dumps({k: v for k, v in line.items() if v is not None}, default=str)


def _run_fields(record: logging.LogRecord) -> Mapping[str, Any]:
    """The run's ids and attempt from what the SDK's activity or workflow logger attached."""
    activity = getattr(record, "temporal_activity", None)
    if isinstance(activity, Mapping):
        return {**activity, "run_id": activity.get("workflow_run_id")}
    workflow = getattr(record, "temporal_workflow", None)
    return workflow if isinstance(workflow, Mapping) else {}


def configure_logging(log_format: str) -> None:
    """Log WARNING and above on stderr, as FUNDSAGA_LOG_FORMAT says: `text` or `json`."""
    if log_format == "json":
        # The fields carry the run's ids; the SDK would also append them to every message.
        activity.logger.activity_info_on_message = False
        workflow.logger.workflow_info_on_message = False
        handler = logging.StreamHandler()
        handler.setFormatter(JsonFormatter())
        logging.basicConfig(level=logging.WARNING, handlers=[handler])
    else:
        logging.basicConfig(level=logging.WARNING, format=TEXT_FORMAT)
