"""The game each key of a moderator or a player was first sent to.

A key is remembered in the ``commands`` table of its game (service/idempotency.py). Seat and host
tokens reach one game, so that is all they need; a moderator's token reaches every game's
disputes and a player's every game's seats, so one key of theirs could name a request in two
games, each log unaware of the other. This table binds such a key to its first game: the same
key sent for another game is refused (422 ``idempotency_key_reused``). Under Citus it is
distributed by ``caller`` (service/citus.py).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-02
"""

from alembic import op

revision = "0013"
down_revision = "0012"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE caller_keys (
            caller     text NOT NULL,  -- service/idempotency.py's callers: 'player:<id>', ...
            key        text NOT NULL,
            game_id    uuid NOT NULL,
            created_at timestamptz NOT NULL DEFAULT now(),
            CONSTRAINT caller_keys_once PRIMARY KEY (caller, key)
        );
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE caller_keys;")
