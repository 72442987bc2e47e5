"""A payment-provider simulator that runs as its own HTTP service (tooling: not in the wheel).

Idempotent by key; per key or account pattern it accepts, declines, rate-limits with
Retry-After, accepts and answers too late, settles and calls back (once, twice, or never), and
answers `unknown` to a number of status inquiries. It publishes its own account's statement of
a day (camt.053, camt.054, CSV) with the breaks a scenario injects. See `_server` for the API.
"""

from tooling.provider._book import PayoutStatus
from tooling.provider._process import ProviderProcess
from tooling.provider._scenario import Behaviour, Scenario

__all__ = ["Behaviour", "PayoutStatus", "ProviderProcess", "Scenario"]
