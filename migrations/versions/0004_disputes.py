"""Disputes: the moderators' queue (a read model), ruled outcomes and penalties in the others.

- ``disputes``: one row per dispute, kept by the projector from the dispute events of the log
  and rebuilt by ``playlog projections rebuild`` like the lobby list.
- ``lobby_games.ruled_winners``: the winners as an upheld verdict ruled them (NULL: the original
  ``winners`` stand).
- ``player_stats.penalties``: marks by ``penalize`` verdicts; ``won`` counts the ruled outcome.
- An index on the log for a dispute id's game (the moderation routes name a dispute only): the
  log is the truth, so a moderator never waits for the projector.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-30
"""

from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE disputes (
            dispute_id  uuid PRIMARY KEY,
            game_id     uuid NOT NULL,
            kind        text NOT NULL,
            seat        integer,             -- the raising seat; NULL: a moderator's review
            category    text NOT NULL,
            status      text NOT NULL CHECK (status IN ('open', 'claimed', 'resolved')),
            claimed_by  text,
            verdict     text,
            action      text,
            review_of   uuid,
            raised_at   timestamptz NOT NULL,
            raised_seq  integer NOT NULL,
            resolved_at timestamptz
        );
        -- The queue: by status, oldest first.
        CREATE INDEX disputes_queue ON disputes (status, raised_at, dispute_id);

        ALTER TABLE lobby_games ADD COLUMN ruled_winners integer[];
        ALTER TABLE player_stats ADD COLUMN penalties integer NOT NULL DEFAULT 0;

        CREATE INDEX events_dispute_raised ON events ((data->>'dispute_id')) WHERE type = 'dispute.raised';
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP INDEX events_dispute_raised;
        ALTER TABLE player_stats DROP COLUMN penalties;
        ALTER TABLE lobby_games DROP COLUMN ruled_winners;
        DROP TABLE disputes;
        """
    )
