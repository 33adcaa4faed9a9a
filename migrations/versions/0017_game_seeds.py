"""The server's secret seed of each game (domain/randomness.py, docs/export-format.md).

``game_seeds``: 32 random bytes per game, drawn when the game is created and committed to in its
``lobby.created`` (sha256 with a domain prefix); the game discloses it in its log when it ends,
moderators read it at any time through the audit. Written once, never changed: the events'
trigger function refuses updates and deletes, so a seed cannot be swapped after its commitment.
Not in the log (it is secret while the game runs) and not exported before the end.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-02
"""

from alembic import op

revision = "0017"
down_revision = "0016"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE game_seeds (
            game_id  uuid   PRIMARY KEY,
            seed     bytea  NOT NULL CHECK (length(seed) = 32)
        );
        CREATE TRIGGER game_seeds_append_only BEFORE UPDATE OR DELETE ON game_seeds
            FOR EACH ROW EXECUTE FUNCTION playlog_refuse_change();
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE game_seeds")
