"""Ratings from the log (issue 54): the read model ``rated_games``.

One row per finished game that counts towards ratings (public, created ``rated``, two players or
more: projections/ratings.py), with what the public may learn of it and when: the game's end
(``finished_at``, the ``recorded_at`` of the event that ended it), its spectator delay, and its
results (each player's place as the game ended, then after each ruling that changed it, with the
ruling's time; a void ruling has no places). The ratings are computed from the rows released
when read, so a ruling released later recomputes them.

The read models start over: the projector folds every game again (each is behind while its
lobby row is missing), which fills the new table.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-03
"""

from alembic import op

revision = "0021"
down_revision = "0020"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        TRUNCATE lobby_games, player_games, disputes;

        -- results: [{"at": null (the end) | epoch seconds (a ruling), "places": {player: n} | null}]
        CREATE TABLE rated_games (
            game_id         uuid PRIMARY KEY,
            kind            text NOT NULL,
            finished_at     timestamptz,
            spectator_delay double precision NOT NULL CHECK (spectator_delay >= 0),
            results         jsonb NOT NULL
        );
        CREATE INDEX rated_games_by_kind ON rated_games (kind);
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE rated_games")
