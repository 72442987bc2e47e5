"""The two PostgreSQL roles fundsaga's migrations set up: who owns the tables, who uses them."""

from __future__ import annotations

DATABASE_OWNER_ROLE = "fundsaga_owner"
"""Owns every fundsaga table, sequence and trigger function; `fundsaga db upgrade` runs as it."""

DATABASE_WORKER_ROLE = "fundsaga_worker"
"""What workers and the CLI connect as: reads, appends, and only the updates the ledger makes."""
