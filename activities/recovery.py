"""The database side of a killed saga's recovery: what the saga did, as the ledger holds it."""

from __future__ import annotations

from temporalio import activity

from sagas.engine import RECOVERY_LOAD_ACTIVITY, SagaEffects
from sagas.ledger import HoldStatus, Ledger


class RecoveryActivities:
    def __init__(self, ledger: Ledger) -> None:
        self.ledger = ledger

    @activity.defn(name=RECOVERY_LOAD_ACTIVITY)
    def load(self, saga_id: str) -> SagaEffects:
        """The saga's claim, snapshots, net effect and open holds; reading changes nothing."""
        holds = self.ledger.holds(saga_id=saga_id)
        return SagaEffects(
            run_chain=self.ledger.claim_of(saga_id),
            snapshots=self.ledger.snapshots(saga_id),
            net_effect={
                account: str(money) for account, money in self.ledger.net_effect(saga_id).items()
            },
            active_holds=[
                f"{hold.amount} on {hold.account_id}"
                for hold in holds
                if hold.status is HoldStatus.ACTIVE
            ],
        )
