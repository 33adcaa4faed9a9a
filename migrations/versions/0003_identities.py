"""Identities: players (an id and a display name), moderators by name, statistics by player id.

``players`` and ``moderators`` are sources of truth (who exists, whose tokens are revoked), not
projections: ``playlog projections rebuild`` leaves them alone. ``player_stats`` stays a read
model, now keyed by the player's id: display names were never identities, so the statistics
kept by name are dropped (games joined before players existed have no player, hence no
statistics: a rebuild gives the same result).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE players (
            player_id  uuid PRIMARY KEY,
            name       text NOT NULL CHECK (length(name) BETWEEN 1 AND 40),  -- not unique
            created_at timestamptz NOT NULL DEFAULT now(),
            revoked_at timestamptz  -- set by the holder: every token of this player is refused
        );

        -- One row per moderator name: its latest token, and the revocation (tokens issued at
        -- or before revoked_at are refused; a token issued later works again).
        CREATE TABLE moderators (
            name       text PRIMARY KEY,
            issued_at  timestamptz NOT NULL,
            expires_at timestamptz NOT NULL,
            revoked_at timestamptz
        );

        TRUNCATE player_stats;
        ALTER TABLE player_stats DROP CONSTRAINT player_stats_key;
        ALTER TABLE player_stats DROP COLUMN player;
        ALTER TABLE player_stats ADD COLUMN player_id uuid NOT NULL;
        ALTER TABLE player_stats ADD CONSTRAINT player_stats_key PRIMARY KEY (player_id, kind);
        """
    )


def downgrade() -> None:
    # Statistics by name are not kept here: run `playlog projections rebuild` after downgrading.
    op.execute(
        """
        TRUNCATE player_stats;
        ALTER TABLE player_stats DROP CONSTRAINT player_stats_key;
        ALTER TABLE player_stats DROP COLUMN player_id;
        ALTER TABLE player_stats ADD COLUMN player text NOT NULL;
        ALTER TABLE player_stats ADD CONSTRAINT player_stats_key PRIMARY KEY (player, kind);

        DROP TABLE moderators;
        DROP TABLE players;
        """
    )
