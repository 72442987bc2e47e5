"""journal chain: gapless sequence numbers, hash links, running balances and signatures

Each journal entry gets its place in the chain (sequence, prev_hash, entry_hash) and each
posting the balance its account reaches (balance_after); the one-row journal_head is what every
append locks. Entries written before this revision are chained here in entry_id order. Triggers
then refuse an entry that does not append at the head, a head that does not move onto the
entry just appended, a posting whose running balance does not follow from the one before, and
an account balance that no posting explains. Entries and holds gain the columns of their
writer's signature; rows written before this revision stay unsigned, and say so when verified.

On PostgreSQL the new table and trigger functions go to the owner role, and the worker may
lock and move the head and re-sign a hold as it closes.

Revision ID: 2026_11_22_0007
Revises: 2026_11_22_0006
Create Date: 2026-11-22 15:00:00
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from sagas.foundations import DATABASE_OWNER_ROLE as OWNER
from sagas.foundations import DATABASE_WORKER_ROLE as WORKER
from sagas.foundations import UtcDateTime
from sagas.ledger import GENESIS_HASH, entry_hash

revision: str = "2026_11_22_0007"
down_revision: str | Sequence[str] | None = "2026_11_22_0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

HASH = 64
NEW_COLUMNS = (
    ("journal_entry", "sequence", sa.BigInteger(), "0"),
    ("journal_entry", "prev_hash", sa.String(HASH), ""),
    ("journal_entry", "entry_hash", sa.String(HASH), ""),
    ("posting", "balance_after", sa.BigInteger(), "0"),
)
LATEST_BALANCE = (
    "(SELECT p.balance_after FROM posting p WHERE p.account_id = NEW.account_id"
    " ORDER BY p.posting_id DESC LIMIT 1)"
)
HEAD = "(SELECT {column} FROM journal_head WHERE head_id = 1)"
# Each rule: (name, table, timing, condition that must hold, message).
RULES = (
    (
        "journal_entry_appends_at_head",
        "journal_entry",
        "INSERT",
        f"NEW.sequence = {HEAD.format(column='sequence + 1')}"
        f" AND NEW.prev_hash = {HEAD.format(column='entry_hash')}",
        "a journal entry appends at the head of the chain",
    ),
    (
        "journal_head_advances",
        "journal_head",
        "UPDATE",
        "NEW.head_id = OLD.head_id AND NEW.sequence = OLD.sequence + 1 AND NEW.entry_hash ="
        " (SELECT e.entry_hash FROM journal_entry e WHERE e.sequence = NEW.sequence)",
        "the journal head moves only onto the entry appended after it",
    ),
    (
        "posting_balance_follows",
        "posting",
        "INSERT",
        f"NEW.balance_after = COALESCE({LATEST_BALANCE}, 0) + NEW.amount",
        "a posting balance_after is the previous balance of its account plus its amount",
    ),
    (
        "account_opens_empty",
        "account",
        "INSERT",
        "NEW.balance = 0 AND NEW.held = 0",
        "an account opens with nothing: money arrives by postings",
    ),
    (
        "account_balance_explained",
        "account",
        "UPDATE",
        f"NEW.balance = OLD.balance OR NEW.balance = {LATEST_BALANCE}",
        "an account balance changes only to the balance its latest posting reached",
    ),
    (
        "account_identity_fixed",
        "account",
        "UPDATE",
        "NEW.account_id = OLD.account_id AND NEW.currency = OLD.currency"
        " AND NEW.is_system = OLD.is_system",
        "an account keeps its id, currency and kind",
    ),
)


def upgrade() -> None:
    op.create_table(
        "journal_head",
        sa.Column("head_id", sa.Integer(), autoincrement=False, nullable=False),
        sa.Column("sequence", sa.BigInteger(), nullable=False),
        sa.Column("entry_hash", sa.String(HASH), nullable=False),
        sa.PrimaryKeyConstraint("head_id", name="pk_journal_head"),
        sa.CheckConstraint("head_id = 1", name="ck_journal_head_single_row"),
    )
    # NOT NULL columns need a default to be added to filled tables; the backfill replaces it.
    for table, name, type_, default in NEW_COLUMNS:
        op.add_column(table, sa.Column(name, type_, nullable=False, server_default=default))
    for table in ("journal_entry", "hold"):
        op.add_column(table, sa.Column("key_id", sa.String(16), nullable=True))
        op.add_column(table, sa.Column("signature", sa.String(88), nullable=True))
    head = _chain_existing_entries()
    op.execute(
        sa.text(
            "INSERT INTO journal_head (head_id, sequence, entry_hash) VALUES (1, :s, :h)"
        ).bindparams(s=head[0], h=head[1])
    )
    op.create_index("ix_journal_entry_sequence", "journal_entry", ["sequence"], unique=True)
    op.create_index("ix_posting_account_id_posting_id", "posting", ["account_id", "posting_id"])
    op.drop_index("ix_posting_account_id", table_name="posting")
    if _dialect() == "postgresql":
        for table, name, *_ in NEW_COLUMNS:
            op.alter_column(table, name, server_default=None)
    for statement in _rule_statements():
        op.execute(statement)
    if _dialect() == "postgresql":
        for statement in _roles_statements("GRANT", "TO"):
            op.execute(statement)


def _roles_statements(verb: str, preposition: str) -> list[str]:
    """The owner role owns what this revision creates; the worker locks and moves the head
    (SELECT ... FOR UPDATE needs an UPDATE privilege) and re-signs a hold as it closes."""
    grants = [
        f"{verb} SELECT, UPDATE (sequence, entry_hash) ON journal_head {preposition} {WORKER}",
        f"{verb} UPDATE (key_id, signature) ON hold {preposition} {WORKER}",
    ]
    if verb == "REVOKE":
        return grants
    owned = [
        "ALTER TABLE journal_head OWNER TO " + OWNER + ";",
        *(f"ALTER FUNCTION {name}() OWNER TO {OWNER};" for name, *_ in RULES),
    ]
    body = "\n            ".join(owned)
    hand_over = f"""DO $$ BEGIN
        IF current_user <> '{OWNER}' THEN
            {body}
        END IF;
    END $$"""
    return [hand_over, *grants]


_ENTRY = sa.table(
    "journal_entry",
    sa.column("entry_id", sa.BigInteger()),
    sa.column("idempotency_key", sa.String()),
    sa.column("saga_id", sa.String()),
    sa.column("kind", sa.String()),
    sa.column("reverses_entry_id", sa.BigInteger()),
    sa.column("created_at", UtcDateTime()),
    sa.column("sequence", sa.BigInteger()),
    sa.column("prev_hash", sa.String()),
    sa.column("entry_hash", sa.String()),
)
_POSTING = sa.table(
    "posting",
    sa.column("posting_id", sa.BigInteger()),
    sa.column("entry_id", sa.BigInteger()),
    sa.column("account_id", sa.String()),
    sa.column("currency", sa.String()),
    sa.column("amount", sa.BigInteger()),
    sa.column("balance_after", sa.BigInteger()),
)
# The refusals of revision 0005 that the backfill's UPDATEs must pass, by dialect.
_SQLITE_REFUSALS = {
    table: f"""CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table}
        BEGIN SELECT RAISE(ABORT, '{table} is immutable: UPDATE refused'); END"""
    for table in ("journal_entry", "posting")
}


def _chain_existing_entries() -> tuple[int, str]:
    """Chain the entries already written, in entry_id order; the head (sequence, hash)."""
    bind = op.get_bind()
    entries = bind.execute(sa.select(_ENTRY).order_by(_ENTRY.c.entry_id)).all()
    if not entries:
        return 0, GENESIS_HASH
    postings: dict[int, list[sa.Row[tuple[int, int, str, str, int, int]]]] = {}
    for posting in bind.execute(sa.select(_POSTING).order_by(_POSTING.c.posting_id)):
        postings.setdefault(posting.entry_id, []).append(posting)
    _refuse_updates(bind.dialect.name, refused=False)
    balances: dict[str, int] = {}
    sequence, prev_hash = 0, GENESIS_HASH
    for entry in entries:
        content = []
        for posting in postings.get(entry.entry_id, []):
            balance = balances.get(posting.account_id, 0) + posting.amount
            balances[posting.account_id] = balance
            content.append((posting.account_id, posting.currency, posting.amount, balance))
            bind.execute(
                _POSTING.update()
                .where(_POSTING.c.posting_id == posting.posting_id)
                .values(balance_after=balance)
            )
        sequence += 1
        digest = entry_hash(
            sequence=sequence,
            prev_hash=prev_hash,
            key=entry.idempotency_key,
            saga_id=entry.saga_id,
            kind=entry.kind,
            reverses_entry_id=entry.reverses_entry_id,
            created_at=entry.created_at,
            postings=content,
        )
        bind.execute(
            _ENTRY.update()
            .where(_ENTRY.c.entry_id == entry.entry_id)
            .values(sequence=sequence, prev_hash=prev_hash, entry_hash=digest)
        )
        prev_hash = digest
    _refuse_updates(bind.dialect.name, refused=True)
    return sequence, prev_hash


def _refuse_updates(dialect: str, *, refused: bool) -> None:
    """Switch revision 0005's UPDATE refusals off for the backfill, and on again after it."""
    for table, create in _SQLITE_REFUSALS.items():
        if dialect == "sqlite":
            op.execute(create if refused else f"DROP TRIGGER {table}_no_update")
        else:
            switch = "ENABLE" if refused else "DISABLE"
            op.execute(f"ALTER TABLE {table} {switch} TRIGGER {table}_refuse_change")


def _rule_statements() -> list[str]:
    if _dialect() == "sqlite":
        return [
            f"""CREATE TRIGGER {name} BEFORE {timing} ON {table} WHEN NOT ({condition})
            BEGIN SELECT RAISE(ABORT, '{message}'); END"""
            for name, table, timing, condition, message in RULES
        ] + [
            """CREATE TRIGGER journal_head_no_delete BEFORE DELETE ON journal_head
            BEGIN SELECT RAISE(ABORT, 'journal_head is never deleted'); END""",
            """CREATE TRIGGER journal_head_no_insert BEFORE INSERT ON journal_head
            BEGIN SELECT RAISE(ABORT, 'journal_head has its one row'); END""",
        ]
    statements = []
    for name, table, timing, condition, message in RULES:
        statements += [
            f"""CREATE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                IF {condition} THEN
                    RETURN NEW;
                END IF;
                RAISE EXCEPTION '{message}' USING ERRCODE = 'restrict_violation';
            END $$""",
            f"""CREATE TRIGGER {name} BEFORE {timing} ON {table}
            FOR EACH ROW EXECUTE FUNCTION {name}()""",
        ]
    statements.append(
        """CREATE TRIGGER journal_head_refuse_change BEFORE INSERT OR DELETE OR TRUNCATE
        ON journal_head FOR EACH STATEMENT EXECUTE FUNCTION ledger_refuse_change()"""
    )
    return statements


def downgrade() -> None:
    if _dialect() == "postgresql":
        for statement in _roles_statements("REVOKE", "FROM"):
            op.execute(statement)
    if _dialect() == "sqlite":
        for name, *_ in RULES:
            op.execute(f"DROP TRIGGER {name}")
        op.execute("DROP TRIGGER journal_head_no_delete")
        op.execute("DROP TRIGGER journal_head_no_insert")
    else:
        op.execute("DROP TRIGGER journal_head_refuse_change ON journal_head")
        for name, table, *_ in RULES:
            op.execute(f"DROP TRIGGER {name} ON {table}")
            op.execute(f"DROP FUNCTION {name}()")
    op.create_index("ix_posting_account_id", "posting", ["account_id"])
    op.drop_index("ix_posting_account_id_posting_id", table_name="posting")
    op.drop_index("ix_journal_entry_sequence", table_name="journal_entry")
    # Plain ALTER TABLE, not a batch copy: a copied table would lose revision 0005's triggers.
    op.execute("ALTER TABLE posting DROP COLUMN balance_after")
    for table in ("journal_entry", "hold"):
        for column in ("signature", "key_id"):
            op.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
    for column in ("entry_hash", "prev_hash", "sequence"):
        op.execute(f"ALTER TABLE journal_entry DROP COLUMN {column}")
    op.drop_table("journal_head")


def _dialect() -> str:
    return op.get_context().dialect.name
