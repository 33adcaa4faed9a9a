"""Read model: the games each player held a seat in, newest first (``GET /players/me/games``).

A projection of the log like ``lobby_games`` (service/projector.py keeps it; ``playlog
projections rebuild`` truncates and refills it). One row per (player, game) while the player
holds a seat of the game: leaving an open game removes the row; conceding a running one keeps it.
Guests (no player id) have no rows.

Revision ID: 0005
Revises: 0003
Create Date: 2026-11-30
"""

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        -- Grows with players times games (under Citus: distributed by player_id).
        CREATE TABLE player_games (
            player_id  uuid NOT NULL,
            game_id    uuid NOT NULL,
            kind       text NOT NULL,
            seats      integer[] NOT NULL,  -- the seats this player holds (one, nearly always)
            status     text NOT NULL CHECK (status IN ('open', 'running', 'finished')),
            outcome    text CHECK (outcome IN ('won', 'lost')),  -- for this player, once finished
            created_at timestamptz NOT NULL,
            CONSTRAINT player_games_key PRIMARY KEY (player_id, game_id)
        );
        CREATE INDEX player_games_newest ON player_games (player_id, created_at DESC, game_id);
        CREATE INDEX player_games_by_game ON player_games (game_id);

        -- Fill it from the log: the read models start over, and the projector replays the
        -- whole log into all of them (as `playlog projections rebuild` would).
        TRUNCATE lobby_games, player_stats, disputes;
        UPDATE projector_checkpoints SET tx_id = '0', "position" = 0, updated_at = now();
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE player_games;")
