"""No global cursor on the log: drop the ``(tx_id, position)`` index and the ``tx_id`` column.

They served one order, the whole log by commit (``EventStore.read_all`` before this revision),
which the projector stopped following in 0006 and which sharding cannot keep. Every append wrote
a second B-tree entry per event and evaluated ``pg_current_xact_id()`` for it; the events' only
index on the command path is now their key ``(game_id, seq)``, which is also the order
``read_all`` reads in. ``position`` stays, an identity per node, a hint for readers.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        DROP INDEX events_tx_position;
        ALTER TABLE events DROP COLUMN tx_id;
        """
    )


def downgrade() -> None:
    # Every row gets the downgrading transaction's id: the old cursor order is then position's.
    op.execute(
        """
        ALTER TABLE events ADD COLUMN tx_id xid8 NOT NULL DEFAULT pg_current_xact_id();
        CREATE INDEX events_tx_position ON events (tx_id, position);
        """
    )
