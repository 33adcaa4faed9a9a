"""A finished game's result reaches the public only after the spectator delay (issue 34).

The listing and a player's statistics are public reads; the read models held the result as it
is now (``lobby_games.ruled_winners``, the running counts of ``player_stats``), which a read
could not hold back. They now keep when each part happened, and the reads show what the
spectator delay has released (projections/spectator.py decides what and when):

- ``lobby_games.rulings``: the result after each upheld ruling that changed it, with its time
  (replaces ``ruled_winners``, which was the last of them);
- ``player_games``: the game's ``spectator_delay``, its ``finished_at`` (the ``recorded_at`` of
  the event that ended it), the player's outcome as the game ended (``ended``) and after each
  such ruling (``rulings``). A player's statistics are counted from these rows when read;
  ``player_stats``, counts with no times, goes.

The read models start over: the projector folds every game again (each is behind while its
lobby row is missing).

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-02
"""

from alembic import op

revision = "0014"
down_revision = "0013"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        TRUNCATE lobby_games, player_games, disputes;
        DROP TABLE player_stats;

        -- [{"at": epoch seconds, "winners": [seats] or null (the original outcome stands)}, ...]
        ALTER TABLE lobby_games DROP COLUMN ruled_winners,
            ADD COLUMN rulings jsonb NOT NULL DEFAULT '[]';

        -- rulings: [{"at": epoch seconds, "outcome": "won" | "lost", "penalties": n}, ...]
        ALTER TABLE player_games
            ADD COLUMN spectator_delay double precision NOT NULL DEFAULT 0
                CHECK (spectator_delay >= 0),
            ADD COLUMN finished_at timestamptz,
            ADD COLUMN ended text CHECK (ended IN ('won', 'lost')),
            ADD COLUMN rulings jsonb NOT NULL DEFAULT '[]';
        """
    )


def downgrade() -> None:
    # The old projector counts from an empty read model: run `playlog projections rebuild`.
    op.execute(
        """
        TRUNCATE lobby_games, player_games, disputes;
        ALTER TABLE player_games DROP COLUMN rulings, DROP COLUMN ended, DROP COLUMN finished_at,
            DROP COLUMN spectator_delay;
        ALTER TABLE lobby_games DROP COLUMN rulings, ADD COLUMN ruled_winners integer[];
        CREATE TABLE player_stats (
            player_id uuid NOT NULL,
            kind      text NOT NULL,
            played    integer NOT NULL DEFAULT 0 CHECK (played >= 0),
            won       integer NOT NULL DEFAULT 0 CHECK (won >= 0 AND won <= played),
            penalties integer NOT NULL DEFAULT 0,
            CONSTRAINT player_stats_key PRIMARY KEY (player_id, kind)
        );
        """
    )
