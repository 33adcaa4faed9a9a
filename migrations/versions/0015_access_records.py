"""Access records: every face-up read of a game by a moderator, hash-chained per game.

A source of truth next to ``events``, not a read model: ``playlog projections rebuild`` leaves
it alone, and the same triggers refuse ``UPDATE``, ``DELETE`` and ``TRUNCATE``. Each game's
records have their own chain (``n`` = 1, 2, ...), apart from the game's log, so a read never moves
a seq a seat could count (RULES 3). ``playlog_access_record`` appends one record: it takes a
transaction-scoped advisory lock on the game, so appends to one game are serialised and its
chain has no fork, and the database's clock gives ``at``.

``hash = sha256(prev_hash || jsonb text of the record)``, the record being
``{game_id, n, at, moderator, operation, seq_from, seq_to, reason, dispute_id, note}``; the
canonical text is the events' (docs/export-format.md), so an export verifies offline.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-02
"""

from alembic import op

revision = "0015"
down_revision = "0014"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.execute(
        """
        CREATE TABLE access_records (
            game_id    uuid          NOT NULL,
            n          integer       NOT NULL CHECK (n >= 1),
            at         numeric(17,6) NOT NULL,
            moderator  text          NOT NULL,
            operation  text          NOT NULL,
            seq_from   integer       NOT NULL,
            seq_to     integer       NOT NULL,
            reason     text          NOT NULL,
            dispute_id uuid,
            note       text,
            prev_hash  bytea         NOT NULL,
            hash       bytea         NOT NULL,
            PRIMARY KEY (game_id, n)
        );

        CREATE FUNCTION playlog_access_digest(
            p_prev bytea, p_game uuid, p_n integer, p_at numeric, p_moderator text,
            p_operation text, p_from integer, p_to integer, p_reason text, p_dispute uuid,
            p_note text
        ) RETURNS bytea LANGUAGE sql IMMUTABLE AS $$
            SELECT sha256(p_prev || convert_to(jsonb_build_object(
                'game_id', p_game, 'n', p_n, 'at', p_at, 'moderator', p_moderator,
                'operation', p_operation, 'seq_from', p_from, 'seq_to', p_to, 'reason', p_reason,
                'dispute_id', p_dispute, 'note', p_note)::text, 'UTF8'))
        $$;

        CREATE FUNCTION playlog_access_record(
            p_game uuid, p_moderator text, p_operation text, p_from integer, p_to integer,
            p_reason text, p_dispute uuid, p_note text
        ) RETURNS TABLE (n integer, at numeric, hash bytea) LANGUAGE plpgsql AS $$
        #variable_conflict use_column
        DECLARE
            v_n integer;
            v_prev bytea;
            v_at numeric(17,6);
            v_hash bytea;
        BEGIN
            PERFORM pg_advisory_xact_lock(hashtextextended('playlog_access:' || p_game::text, 0));
            SELECT a.n, a.hash INTO v_n, v_prev
                FROM access_records a WHERE a.game_id = p_game ORDER BY a.n DESC LIMIT 1;
            v_n := coalesce(v_n, 0) + 1;
            v_prev := coalesce(v_prev, decode(repeat('00', 32), 'hex'));
            v_at := round(extract(epoch FROM clock_timestamp()), 6);
            v_hash := playlog_access_digest(
                v_prev, p_game, v_n, v_at, p_moderator, p_operation, p_from, p_to, p_reason,
                p_dispute, p_note);
            INSERT INTO access_records (game_id, n, at, moderator, operation, seq_from, seq_to,
                                        reason, dispute_id, note, prev_hash, hash)
            VALUES (p_game, v_n, v_at, p_moderator, p_operation, p_from, p_to, p_reason,
                    p_dispute, p_note, v_prev, v_hash);
            RETURN QUERY SELECT v_n, v_at, v_hash;
        END
        $$;

        -- The events' guard, its message naming the table it guards.
        CREATE OR REPLACE FUNCTION playlog_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION '% are append-only: % refused', TG_TABLE_NAME, TG_OP
                USING ERRCODE = 'PL403';
        END
        $$;
        CREATE TRIGGER access_records_append_only
            BEFORE UPDATE OR DELETE ON access_records
            FOR EACH ROW EXECUTE FUNCTION playlog_refuse_change();
        CREATE TRIGGER access_records_no_truncate
            BEFORE TRUNCATE ON access_records
            FOR EACH STATEMENT EXECUTE FUNCTION playlog_refuse_change();
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP TABLE access_records;
        DROP FUNCTION playlog_access_record(uuid, text, text, integer, integer, text, uuid, text);
        DROP FUNCTION playlog_access_digest(
            bytea, uuid, integer, numeric, text, text, integer, integer, text, uuid, text);
        CREATE OR REPLACE FUNCTION playlog_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'events are append-only: % refused', TG_OP
                USING ERRCODE = 'PL403';
        END
        $$;
        """
    )
