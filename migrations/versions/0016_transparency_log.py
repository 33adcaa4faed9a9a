"""The transparency log of games: a Merkle tree of game heads, its checkpoints and cosignatures.

- ``log_leaves``: leaf ``idx`` (0, 1, ...) commits to the head ``head`` of game ``game_id`` at
  ``seq``; the leaf's data (``"playlog/head/v1" || game id || seq || head``) is never served, only
  its hash, so a leaf names no game to someone who does not hold its head.
- ``log_nodes``: the hash of every complete perfect subtree, ``(level, idx)`` covering leaves
  ``idx * 2^level`` onwards (level 0: the leaf hashes). Tiles and proofs read them.
- ``log_checkpoints``: each signed checkpoint (``note``, a C2SP signed note) by tree size.
- ``log_cosignatures``: a witness's cosignature line on a checkpoint, by size and witness key.

One sequencer writes them (service/transparency/log.py); all four are append-only, guarded by
the events' trigger function.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02
"""

from alembic import op

revision = "0016"
down_revision = "0015"
branch_labels = None
depends_on = None

TABLES = ("log_leaves", "log_nodes", "log_checkpoints", "log_cosignatures")


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE log_leaves (
            idx      bigint  PRIMARY KEY CHECK (idx >= 0),
            game_id  uuid    NOT NULL,
            seq      integer NOT NULL,
            head     bytea   NOT NULL
        );
        CREATE INDEX log_leaves_game ON log_leaves (game_id, seq);
        CREATE TABLE log_nodes (
            level  smallint NOT NULL CHECK (level >= 0),
            idx    bigint   NOT NULL CHECK (idx >= 0),
            hash   bytea    NOT NULL,
            PRIMARY KEY (level, idx)
        );
        CREATE TABLE log_checkpoints (
            size        bigint      PRIMARY KEY CHECK (size >= 1),
            root        bytea       NOT NULL,
            note        text        NOT NULL,
            created_at  timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE log_cosignatures (
            size         bigint      NOT NULL REFERENCES log_checkpoints (size),
            witness      text        NOT NULL,
            line         text        NOT NULL,
            received_at  timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (size, witness)
        );
        """
    )
    for table in TABLES:
        op.execute(
            f"""
            CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table}
                FOR EACH ROW EXECUTE FUNCTION playlog_refuse_change();
            CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table}
                FOR EACH STATEMENT EXECUTE FUNCTION playlog_refuse_change();
            """
        )


def downgrade() -> None:
    op.execute("DROP TABLE log_cosignatures, log_checkpoints, log_nodes, log_leaves")
