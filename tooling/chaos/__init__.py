"""The chaos run: concurrent sagas of every built-in type (transfers, fees, FX, payouts to the
provider simulator) while workers are killed, the server restarts, the database fails
transiently and goes out for a while, and some sagas are terminated from outside; then a checker
proves money was conserved and moved once."""

from tooling.chaos._check import Check
from tooling.chaos._checker import FaultsSeen, check_run
from tooling.chaos._outage import ClusterOutage, DatabaseOutage, InjectedOutage
from tooling.chaos._outage_checks import account_times_backwards
from tooling.chaos._plan import ChaosConfig, ChaosPlan, make_plan
from tooling.chaos._report import render
from tooling.chaos._runner import ChaosReport, ChaosRun

__all__ = [
    "ChaosConfig",
    "ChaosPlan",
    "ChaosReport",
    "ChaosRun",
    "Check",
    "ClusterOutage",
    "DatabaseOutage",
    "FaultsSeen",
    "InjectedOutage",
    "account_times_backwards",
    "check_run",
    "make_plan",
    "render",
]
