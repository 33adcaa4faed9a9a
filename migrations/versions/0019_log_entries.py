"""The transparency log's public entries and the witnesses' refusals (docs/transparency-log.md).

- ``log_leaves.tag``: the game's tag in the log, 32 random bytes drawn at the game's first
  version-2 leaf and reused by its later leaves. A leaf with a tag is a version-2 leaf
  (``"playlog/head/v2" || tag || seq || head``), whose data is served as the log's entry
  (C2SP tlog-tiles' entry bundles); a leaf without one (written before this revision) keeps its
  version-1 data (``"playlog/head/v1" || game id || seq || head``), which names the game and is
  given only with that game's proof.
- ``log_witness_refusals``: what the log sent a witness that refused it (C2SP tlog-witness
  ``add-checkpoint``) and what the witness answered: the log's own record of a witness that saw
  a history it would not cosign. Append-only, like the log's other tables.

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-03
"""

from alembic import op

revision = "0019"
down_revision = "0018"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        ALTER TABLE log_leaves ADD COLUMN tag bytea CHECK (length(tag) = 32);
        CREATE INDEX log_leaves_tag ON log_leaves (game_id) WHERE tag IS NOT NULL;
        CREATE TABLE log_witness_refusals (
            id        bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            witness   text        NOT NULL,
            size      bigint      NOT NULL,
            request   text        NOT NULL,
            status    integer     NOT NULL,
            answer    text        NOT NULL,
            at        timestamptz NOT NULL DEFAULT now()
        );
        CREATE TRIGGER log_witness_refusals_append_only BEFORE UPDATE OR DELETE ON log_witness_refusals
            FOR EACH ROW EXECUTE FUNCTION playlog_refuse_change();
        CREATE TRIGGER log_witness_refusals_no_truncate BEFORE TRUNCATE ON log_witness_refusals
            FOR EACH STATEMENT EXECUTE FUNCTION playlog_refuse_change();
        """
    )


def downgrade() -> None:
    op.execute("DROP TABLE log_witness_refusals; ALTER TABLE log_leaves DROP COLUMN tag")
