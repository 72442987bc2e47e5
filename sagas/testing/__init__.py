"""The testing kit: test any registered saga type as the engine tests its own.

- environments: `time_skipping_environment()`, `dev_server_environment()`, `saga_worker(...)`,
  `sqlite_ledger(dir)`, `directory_audit_store(dir)`;
- a `SagaScenario` declares what the kit needs of a saga type (accounts, a request that
  completes, its effect) and the invariants it keeps (money that leaves the system, its key
  scheme, its expected end per fault) and, with `external_effects`, a check of what it did
  outside the ledger (a bank's wires);
- `FaultMatrix(scenario)`: every step's action and compensation failed every way, each case
  checked against the expected end and the ledger's and audit trail's invariants;
- `ReplayGuard(scenario, directory)`: record one type's histories, replay them against today's
  code (`python -m sagas.testing record MODULE:SCENARIO DIRECTORY`);
- `postgres_cluster()` / `PostgresCluster`: a PostgreSQL cluster of the test's own (data
  directory, port), to stop and restart under running sagas;
- `resolve_by_two(saga, note)`: a resolution proposed by one operator, approved by another;
- `fund_by_two(temporal, task_queue, account, amount)`: money brought into an account the
  audited way, proposed by one operator and approved by another;
- `freeze_by_operator(temporal, task_queue, account)`: an account frozen the audited way, by
  a verified operator's action;
- `assert_eventually(check)`.

docs/adding-a-saga.md shows them at work.
"""

from sagas.testing._environments import (
    dev_server_environment,
    directory_audit_store,
    new_task_queue,
    saga_worker,
    sqlite_ledger,
    time_skipping_environment,
    time_skipping_server_path,
)
from sagas.testing._eventually import assert_eventually
from sagas.testing._fault_matrix import FaultMatrix
from sagas.testing._histories import Outcome
from sagas.testing._identity import (
    dev_identity,
    kit_identity_environment,
    kit_operator,
    kit_token,
)
from sagas.testing._ledger_checks import (
    conservation_findings,
    customer_money,
    hold_findings,
    key_findings,
    money_on,
)
from sagas.testing._matrix_case import Decision, Expected, Fault, MatrixCase
from sagas.testing._matrix_run import CaseRun, ClearableFaults, run_case
from sagas.testing._operators import freeze_by_operator, fund_by_two, resolve_by_two
from sagas.testing._postgres_cluster import (
    PostgresCluster,
    PostgresNotFoundError,
    StopMode,
    postgres_bin_dir,
    postgres_cluster,
)
from sagas.testing._replay import ReplayGuard, ServerPorts, load_history
from sagas.testing._scenario import (
    ExternalCheck,
    KeyCheck,
    KeyScheme,
    SagaScenario,
    step_keys,
)

__all__ = [
    "CaseRun",
    "ClearableFaults",
    "Decision",
    "Expected",
    "ExternalCheck",
    "Fault",
    "FaultMatrix",
    "KeyCheck",
    "KeyScheme",
    "MatrixCase",
    "Outcome",
    "PostgresCluster",
    "PostgresNotFoundError",
    "ReplayGuard",
    "SagaScenario",
    "ServerPorts",
    "StopMode",
    "assert_eventually",
    "conservation_findings",
    "customer_money",
    "dev_identity",
    "dev_server_environment",
    "directory_audit_store",
    "freeze_by_operator",
    "fund_by_two",
    "hold_findings",
    "key_findings",
    "kit_identity_environment",
    "kit_operator",
    "kit_token",
    "load_history",
    "money_on",
    "new_task_queue",
    "postgres_bin_dir",
    "postgres_cluster",
    "resolve_by_two",
    "run_case",
    "saga_worker",
    "sqlite_ledger",
    "step_keys",
    "time_skipping_environment",
    "time_skipping_server_path",
]
