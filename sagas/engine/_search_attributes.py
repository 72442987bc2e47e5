"""Custom search attributes every saga carries, for filtering in the Temporal UI and CLI."""

from temporalio.common import SearchAttributeKey

SAGA_STATUS = SearchAttributeKey.for_keyword("SagaStatus")
SAGA_TYPE = SearchAttributeKey.for_keyword("SagaType")
ALL_KEYS = (SAGA_STATUS, SAGA_TYPE)
