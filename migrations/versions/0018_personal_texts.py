"""Personal texts kept beside the log, so that a person can be erased (docs/erasure.md).

The log keeps a seal (domain/personal.py) where a display name or a seat's text was; the text
and its salt live here, one row per seal, under the person it belongs to (``subject``:
``player:<id>``, ``seat:<occupancy>`` for a guest, ``moderator:<name>``). Erasing a person sets
their rows' ``salt`` and ``text`` to NULL and ``shown`` to what the seal opens to from then on (a
pseudonym for a name, "(erased)" for a text); ``players.erased_at`` marks an erased player, whose
``name`` becomes the pseudonym. Logs written before this revision hold their texts in the events
themselves: docs/erasure.md says what that means for them.

The planner's statistics sample column values: none are gathered on the columns that hold names
or texts (as migration 0009 does for the events' payloads), and those gathered so far are
dropped (changing a column's type drops its statistics; text to text rewrites nothing).

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-02
"""

from alembic import op

revision = "0018"
down_revision = "0017"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE personal_texts (
            game_id  uuid  NOT NULL,
            seal     text  NOT NULL CHECK (seal ~ '^sealed:[0-9a-f]{64}$'),
            subject  text  NOT NULL,
            field    text  NOT NULL CHECK (field IN ('name', 'text')),
            salt     bytea CHECK (length(salt) = 32),
            text     text,
            shown    text,
            PRIMARY KEY (game_id, seal),
            CHECK ((salt IS NULL) = (text IS NULL)),
            CHECK (text IS NOT NULL OR shown IS NOT NULL)
        );
        CREATE INDEX personal_texts_by_subject ON personal_texts (subject);
        ALTER TABLE players ADD COLUMN erased_at timestamptz;

        ALTER TABLE personal_texts ALTER COLUMN text SET STATISTICS 0, ALTER COLUMN shown SET STATISTICS 0;
        ALTER TABLE players ALTER COLUMN name SET STATISTICS 0, ALTER COLUMN name TYPE text;
        ALTER TABLE lobby_games ALTER COLUMN seat_names SET STATISTICS 0, ALTER COLUMN seat_names TYPE text[];
        """
    )


def downgrade() -> None:
    op.execute(
        """
        ALTER TABLE lobby_games ALTER COLUMN seat_names SET STATISTICS -1;
        ALTER TABLE players ALTER COLUMN name SET STATISTICS -1, DROP COLUMN erased_at;
        DROP TABLE personal_texts;
        """
    )
