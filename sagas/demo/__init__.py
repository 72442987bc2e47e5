"""The saga catalog that `fundsaga dev --demo` runs: one saga per outcome of every type."""

from sagas.demo._catalog import DEMO_PLANS
from sagas.demo._provider import DemoProviderError, open_demo_provider
from sagas.demo._reconcile import demo_statement_rules, reconcile_demo
from sagas.demo._run import DEMO_FAULTS, DemoRun, run_demo

__all__ = [
    "DEMO_FAULTS",
    "DEMO_PLANS",
    "DemoProviderError",
    "DemoRun",
    "demo_statement_rules",
    "open_demo_provider",
    "reconcile_demo",
    "run_demo",
]
