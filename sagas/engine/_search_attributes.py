"""Custom search attributes every saga carries, for filtering in the Temporal UI and CLI, and
for the metrics collector's count queries."""

from datetime import datetime, timedelta
from typing import Any

from temporalio.common import (
    SearchAttributeIndexedValueType,
    SearchAttributeKey,
    SearchAttributePair,
)

SAGA_STATUS = SearchAttributeKey.for_keyword("SagaStatus")
SAGA_TYPE = SearchAttributeKey.for_keyword("SagaType")
SAGA_DEADLINE = SearchAttributeKey.for_datetime("SagaDeadline")
"""When the saga's deadline passes; set by whoever starts the saga."""
SAGA_STATUS_SINCE = SearchAttributeKey.for_datetime("SagaStatusSince")
"""When the saga's status last changed; absent while it is still the status it started with."""
ALL_KEYS = (SAGA_STATUS, SAGA_TYPE, SAGA_DEADLINE, SAGA_STATUS_SINCE)


def deadline_pair(started_at: datetime, deadline_seconds: int) -> SearchAttributePair[datetime]:
    return SearchAttributePair(SAGA_DEADLINE, started_at + timedelta(seconds=deadline_seconds))


_SERVER_TYPE_NAMES = {
    SearchAttributeIndexedValueType.KEYWORD: "Keyword",
    SearchAttributeIndexedValueType.DATETIME: "Datetime",
}


def server_type_name(key: SearchAttributeKey[Any]) -> str:
    """The type as `temporal operator search-attribute create --type` and the dev server's
    `--search-attribute NAME=TYPE` spell it."""
    return _SERVER_TYPE_NAMES[key.indexed_value_type]
