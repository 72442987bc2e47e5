"""The client for services: start, view, wait for and act on sagas of every registered type, and
their schedules. Importing it loads neither the CLI nor Typer nor Rich."""

from sagas.client._anchor_schedule import anchor_schedule_id, ensure_anchor_schedule
from sagas.client._bulk_actions import ActionResult, BulkActions, SagaActionResult
from sagas.client._client import FundsagaClient, WaitingSaga
from sagas.client._connect import TemporalUnreachableError, connect_temporal
from sagas.client._launch import Launch
from sagas.client._operator_actions import OperatorActions
from sagas.client._operator_credentials import (
    DEV_AUDIENCE,
    DEV_ISSUER,
    AccessToken,
    DevIdentityProvider,
    DevOperator,
    OperatorCredential,
    configured_operator,
    configured_operator_check,
)
from sagas.client._parked_selection import ParkedFilter, ParkedSaga
from sagas.client._process_exit import end_process
from sagas.client._reconcile_actions import ReconcileActions
from sagas.client._recoveries import SagaRecoveries
from sagas.client._saga_handle import SagaHandle
from sagas.client._saga_reading import SagaReading
from sagas.client._schedule_dst import DST_HORIZON_YEARS, matching_times
from sagas.client._schedules import (
    COMPANION_SUFFIX,
    DEFAULT_CATCHUP_WINDOW,
    Overlap,
    SagaSchedules,
    ScheduledRunView,
    ScheduleSummary,
    ScheduleView,
)
from sagas.client._standing import ListedSaga, SagaStanding, saga_standing
from sagas.engine import saga_id

__all__ = [
    "COMPANION_SUFFIX",
    "DEFAULT_CATCHUP_WINDOW",
    "DEV_AUDIENCE",
    "DEV_ISSUER",
    "DST_HORIZON_YEARS",
    "AccessToken",
    "ActionResult",
    "BulkActions",
    "DevIdentityProvider",
    "DevOperator",
    "FundsagaClient",
    "Launch",
    "ListedSaga",
    "OperatorActions",
    "OperatorCredential",
    "Overlap",
    "ParkedFilter",
    "ParkedSaga",
    "ReconcileActions",
    "SagaActionResult",
    "SagaHandle",
    "SagaReading",
    "SagaRecoveries",
    "SagaSchedules",
    "SagaStanding",
    "ScheduleSummary",
    "ScheduleView",
    "ScheduledRunView",
    "TemporalUnreachableError",
    "WaitingSaga",
    "anchor_schedule_id",
    "configured_operator",
    "configured_operator_check",
    "connect_temporal",
    "end_process",
    "ensure_anchor_schedule",
    "matching_times",
    "saga_id",
    "saga_standing",
]
