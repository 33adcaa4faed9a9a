"""A batch never waits for a game another transaction holds: that append goes back, alone.

With migration 0010 a process sends its appends one batch at a time, and a batch waited, with
every append in it, for any game's row another transaction held: one session that locked a
game and stayed (an operator's, say) stalled every append of that process, where before it
stalled only that game's. Called with ``p_wait`` false (as the service's batcher calls it), a game
whose row another transaction holds comes back as a row naming its conflict, 'busy', and the
batch goes on; the service then sends that append alone, waiting for the game as one append
always did. Two batches over the same game (two processes, two instances) meet the same way.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

import importlib.util
from pathlib import Path

from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None

BATCH_BEFORE = (
    "playlog_append_batch(uuid[], integer[], text[], text[], integer[], text[], integer[], jsonb[],"
    " jsonb[], double precision[])"
)
BATCH = BATCH_BEFORE[:-1] + ", boolean)"

APPEND_BATCH = """
-- Item k appends p_counts[k] events to p_games[k]; the events of all items lie end to end in
-- p_types, p_versions and p_data, in item order. Rows: each item's events (``item`` = k), or
-- one row naming its conflict. Without p_wait, a game another transaction holds is not waited
-- for: its item comes back 'busy'.
CREATE FUNCTION playlog_append_batch(
    p_games uuid[], p_expected integer[], p_command_ids text[], p_fingerprints text[],
    p_counts integer[], p_types text[], p_versions integer[], p_data jsonb[], p_metadata jsonb[],
    p_due_at double precision[], p_wait boolean DEFAULT true
) RETURNS TABLE (
    "position" bigint, seq integer, type text, schema_version integer, data jsonb,
    metadata jsonb, recorded_at timestamptz, prev_hash bytea, hash bytea,
    duplicate boolean, fingerprint text, item integer, conflict text
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    items    integer := coalesce(cardinality(p_games), 0);
    offsets  integer[];  -- where item k's events start, less one
    todo     integer[];  -- the items in the order their games are locked
    total    integer := 0;
    k        integer;
    game     uuid;
    n        integer;
    cur_seq  integer;
    cur_hash bytea;
    prior    commands%ROWTYPE;
    ts       timestamptz;
    h        bytea;
    i        integer;
BEGIN
    IF items = 1 THEN  -- the common case under light load: no sort
        offsets := '{0}';
        todo := '{1}';
    ELSE
        offsets := array_fill(0, ARRAY[items]);
        FOR k IN 1 .. items LOOP
            offsets[k] := total;
            total := total + p_counts[k];
        END LOOP;
        todo := ARRAY(SELECT o.k FROM unnest(p_games) WITH ORDINALITY AS o(g, k) ORDER BY o.g, o.k);
    END IF;

    FOREACH k IN ARRAY todo LOOP
        game := p_games[k];
        n := p_counts[k];
        IF p_wait THEN
            SELECT s.seq, s.last_hash INTO cur_seq, cur_hash
              FROM streams s WHERE s.game_id = game FOR UPDATE;
        ELSE
            SELECT s.seq, s.last_hash INTO cur_seq, cur_hash
              FROM streams s WHERE s.game_id = game FOR UPDATE SKIP LOCKED;
            IF NOT FOUND AND EXISTS (SELECT 1 FROM streams s WHERE s.game_id = game) THEN
                -- Another transaction holds the game: this item goes back, the others go on.
                RETURN QUERY SELECT NULL::bigint, NULL::integer, NULL::text, NULL::integer,
                                    NULL::jsonb, NULL::jsonb, NULL::timestamptz, NULL::bytea,
                                    NULL::bytea, false, NULL::text, k, 'busy';
                CONTINUE;
            END IF;
        END IF;
        IF NOT FOUND THEN
            INSERT INTO streams AS s (game_id) VALUES (game) ON CONFLICT (game_id) DO NOTHING;
            SELECT s.seq, s.last_hash INTO cur_seq, cur_hash
              FROM streams s WHERE s.game_id = game FOR UPDATE;
        END IF;

        -- Taken under the game's lock, so recorded_at never goes back within a game.
        ts := clock_timestamp();

        IF p_command_ids[k] IS NOT NULL THEN
            SELECT * INTO prior FROM commands c
             WHERE c.game_id = game AND c.command_id = p_command_ids[k];
            IF FOUND THEN
                RETURN QUERY
                    SELECT e.position, e.seq, e.type, e.schema_version, e.data, e.metadata,
                           e.recorded_at, e.prev_hash, e.hash, true, prior.fingerprint, k, NULL::text
                      FROM events e
                     WHERE e.game_id = game AND e.seq BETWEEN prior.first_seq AND prior.last_seq
                     ORDER BY e.seq;
                CONTINUE;
            END IF;
        END IF;

        IF p_expected[k] <> cur_seq THEN
            RETURN QUERY SELECT NULL::bigint, cur_seq, NULL::text, NULL::integer, NULL::jsonb,
                                NULL::jsonb, NULL::timestamptz, NULL::bytea, NULL::bytea, false,
                                NULL::text, k,
                                CASE WHEN p_expected[k] > cur_seq THEN 'ahead' ELSE 'stale' END;
            CONTINUE;
        END IF;

        FOR i IN offsets[k] + 1 .. offsets[k] + n LOOP
            cur_seq := cur_seq + 1;
            h := playlog_event_digest(cur_hash, game, cur_seq, p_types[i], p_versions[i],
                                      p_data[i], p_metadata[k], ts);
            RETURN QUERY
                INSERT INTO events AS e (game_id, seq, type, schema_version, data, metadata,
                                         command_id, recorded_at, prev_hash, hash)
                VALUES (game, cur_seq, p_types[i], p_versions[i], p_data[i], p_metadata[k],
                        p_command_ids[k], ts, cur_hash, h)
                -- The caller has data and metadata already: not sent back.
                RETURNING e.position, e.seq, e.type, e.schema_version, NULL::jsonb, NULL::jsonb,
                          e.recorded_at, e.prev_hash, e.hash, false, p_fingerprints[k], k, NULL::text;
            cur_hash := h;
        END LOOP;

        IF p_command_ids[k] IS NOT NULL THEN
            INSERT INTO commands (game_id, command_id, fingerprint, first_seq, last_seq)
            VALUES (game, p_command_ids[k], p_fingerprints[k], cur_seq - n + 1, cur_seq);
        END IF;
        UPDATE streams s SET seq = cur_seq, last_hash = cur_hash, updated_at = ts,
                             due_at = to_timestamp(p_due_at[k])
         WHERE s.game_id = game;
    END LOOP;
END
$$;
"""


def _batch_before() -> str:
    """``playlog_append_batch`` as migration 0010 created it (a module whose name no import takes)."""
    path = Path(__file__).with_name("0010_batched_appends.py")
    spec = importlib.util.spec_from_file_location("playlog_migration_0010", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return str(module.APPEND_BATCH)


# playlog_append (0010) calls the batch with ten arguments: p_wait's default, true, keeps it waiting.
def upgrade() -> None:
    op.execute(f"DROP FUNCTION {BATCH_BEFORE}")
    op.execute(APPEND_BATCH)


def downgrade() -> None:
    op.execute(f"DROP FUNCTION {BATCH}")
    op.execute(_batch_before())
