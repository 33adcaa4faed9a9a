"""Read models: the lobby list, player statistics, and the projectors' checkpoints.

These tables are projections of the log (service/projector.py keeps them up to date; ``playlog
projections rebuild`` truncates and refills them). They are never the source of truth.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-01
"""

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        -- One row per game, keyed (and, under Citus, distributed) by game_id.
        -- started_at / finished_at are the recorded_at of the event that set them (the database
        -- clock), so the listing applies the spectator delay exactly as the spectator streams do.
        CREATE TABLE lobby_games (
            game_id         uuid PRIMARY KEY,
            kind            text NOT NULL,
            status          text NOT NULL CHECK (status IN ('open', 'running', 'finished')),
            public          boolean NOT NULL,
            spectator_delay double precision NOT NULL CHECK (spectator_delay >= 0),
            seat_names      text[] NOT NULL,  -- one element per seat; NULL for a free seat
            seats_taken     integer NOT NULL CHECK (seats_taken >= 0),
            seats_total     integer NOT NULL CHECK (seats_total > 0),
            created_at      timestamptz NOT NULL,
            started_at      timestamptz,
            finished_at     timestamptz,
            winners         integer[],        -- winning seats, once finished
            version         integer NOT NULL CHECK (version > 0)  -- seq of the last event projected
        );
        -- The public listing: newest first, by kind.
        CREATE INDEX lobby_games_public_listing ON lobby_games (kind, created_at DESC) WHERE public;
        CREATE INDEX lobby_games_public_recent ON lobby_games (created_at DESC) WHERE public;

        -- Players have no accounts: a seat's display name identifies them. This table grows
        -- with players, not with games (under Citus: distributed by player).
        CREATE TABLE player_stats (
            player text NOT NULL,
            kind   text NOT NULL,
            played integer NOT NULL DEFAULT 0 CHECK (played >= 0),
            won    integer NOT NULL DEFAULT 0 CHECK (won >= 0 AND won <= played),
            CONSTRAINT player_stats_key PRIMARY KEY (player, kind)
        );

        -- Where each projector stands in read_all: after (tx_id, position). Written in the same
        -- transaction as the rows a batch changed, so a crash neither skips nor double-counts.
        CREATE TABLE projector_checkpoints (
            name       text PRIMARY KEY,
            tx_id      xid8 NOT NULL DEFAULT '0',
            "position" bigint NOT NULL DEFAULT 0,
            updated_at timestamptz NOT NULL DEFAULT now()
        );
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP TABLE projector_checkpoints;
        DROP TABLE player_stats;
        DROP TABLE lobby_games;
        """
    )
