"""A schema Citus can distribute by game: keys include game_id; the projector keeps no global cursor.

Citus requires every unique key of a table distributed by ``game_id`` to include it: the events'
primary key becomes ``(game_id, seq)`` (it was ``position``, with ``(game_id, seq)`` a second
unique index: one index fewer per append), the dispute queue's ``(game_id, dispute_id)``.
``position`` stays, an identity per node, only an ordering hint for readers of the whole log.

The projector no longer follows ``(tx_id, position)`` (service/projector.py): each game's
progress is its read-model row's ``version``. ``projector_checkpoints`` keeps one row per
projector with a ``generation`` that a rebuild bumps, so a live batch begun before a rebuild
is refused. Distributing the tables is a separate, explicit step (``playlog citus distribute``,
service/citus.py): this revision runs on plain PostgreSQL and on a Citus coordinator alike.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        ALTER TABLE events DROP CONSTRAINT events_pkey;
        ALTER TABLE events DROP CONSTRAINT events_game_seq;
        ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY (game_id, seq);

        -- The dispute queue is distributed with its game: its key includes game_id.
        ALTER TABLE disputes DROP CONSTRAINT disputes_pkey;
        ALTER TABLE disputes ADD CONSTRAINT disputes_pkey PRIMARY KEY (game_id, dispute_id);
        CREATE INDEX disputes_by_id ON disputes (dispute_id);

        ALTER TABLE projector_checkpoints DROP COLUMN tx_id, DROP COLUMN "position",
            ADD COLUMN generation bigint NOT NULL DEFAULT 0;
        """
    )


def downgrade() -> None:
    # The old projector starts again from the start of the log: run `playlog projections rebuild`.
    op.execute(
        """
        ALTER TABLE projector_checkpoints DROP COLUMN generation,
            ADD COLUMN tx_id xid8 NOT NULL DEFAULT '0', ADD COLUMN "position" bigint NOT NULL DEFAULT 0;

        DROP INDEX disputes_by_id;
        ALTER TABLE disputes DROP CONSTRAINT disputes_pkey;
        ALTER TABLE disputes ADD CONSTRAINT disputes_pkey PRIMARY KEY (dispute_id);

        ALTER TABLE events DROP CONSTRAINT events_pkey;
        ALTER TABLE events ADD CONSTRAINT events_game_seq UNIQUE (game_id, seq);
        ALTER TABLE events ADD CONSTRAINT events_pkey PRIMARY KEY ("position");
        """
    )
