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
SAGA_WAITING_ON = SearchAttributeKey.for_keyword("SagaWaitingOn")
"""The fault of the infrastructure the saga waits out (an error type); empty once it goes on,
absent if it never waited. Emptied rather than unset: the time-skipping test server keeps an
unset attribute as a null that the SDK cannot decode as a time."""
SAGA_WAITING_SINCE = SearchAttributeKey.for_datetime("SagaWaitingSince")
"""When the saga last began to wait on the infrastructure (see SagaWaitingOn)."""
ALL_KEYS = (
    SAGA_STATUS,
    SAGA_TYPE,
    SAGA_DEADLINE,
    SAGA_STATUS_SINCE,
    SAGA_WAITING_ON,
    SAGA_WAITING_SINCE,
)


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
