"""A batch of appends writes what its items append in one statement, after checking each item.

``playlog_append_batch`` wrote as it went: for each item, one ``INSERT`` an event, one into
``commands`` and one ``UPDATE`` of ``streams``. Each statement a PL/pgSQL function runs starts an
executor of its own: it opens the table and its indexes, reads and plans the table's CHECK
constraints and the partial index's predicate from their stored text, and builds its
expressions, about 10 microseconds before a row is written. A command (2.3 events on average)
paid that four or five times.

Each item is still checked as it comes, under its game's lock and in the same order (the
stream's head, a command already recorded, an open incident, a torn head, the expected number),
and its events' hashes are chained at once. With several items, what they append (their events,
their commands, their games' heads) is gathered in arrays and written by one statement with
three data-modifying parts, whose rows are the events the callers get back. An item of a game
whose item came just before in the locking order (a batch may hold two appends of one game) first
has the writes so far made, so that it sees that item's events, command and head as before.

A lone append (a quiet service; ``playlog_append``, which Citus delegates to the game's node)
still writes row by row: that statement's own set-up costs more than the rows it saves when it
carries one command. PostgreSQL's CPU a call, one connection, 2.5 events an append
(``bench/append_costs.py`` and a direct loop): the same for 1 and 2 appends a call, a fifth less
for 8 (730 against 910 microseconds, the commit included) and for 25 (73-79 against 93-114
microseconds an append).

The rows, the hash chain, the conflicts and the signature are unchanged, so ``playlog_append``
and the delegation on Citus stay as they are.

Revision ID: 0027
Revises: 0026
Create Date: 2026-12-05
"""

import importlib.util
from pathlib import Path
from types import ModuleType

from alembic import op

revision = "0027"
down_revision = "0026"
branch_labels = None
depends_on = None


def _revision(name: str) -> ModuleType:
    """An earlier migration's module (a module whose name no import takes)."""
    path = Path(__file__).with_name(name)
    spec = importlib.util.spec_from_file_location(f"playlog_migration_{name[:4]}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_APPEND_BATCH = """
-- Item k appends p_counts[k] events to p_games[k]; the events of all items lie end to end in
-- p_types, p_versions and p_data, in item order. Rows: each item's events (``item`` = k), or
-- one row naming its conflict. Without p_wait, a game another transaction holds is not waited
-- for: its item comes back 'busy'. Each item is checked under its game's lock as it comes; what
-- the items append is written at the end, in one statement (migration 0027).
CREATE OR REPLACE FUNCTION playlog_append_batch(
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
    log_seq  integer;
    log_hash bytea;
    prior    commands%ROWTYPE;
    ts       timestamptz;
    h        bytea;
    i        integer;
    meta     jsonb;
    pos      integer;
    last_game uuid;  -- the game of the item before, in locking order
    -- What the items append, written in one statement once every item is checked: each
    -- event's item, number, index into p_types/p_versions/p_data, metadata, time, hashes...
    w_items  integer[] := '{}';
    w_seqs   integer[] := '{}';
    w_index  integer[] := '{}';
    w_metas  jsonb[] := '{}';
    w_times  timestamptz[] := '{}';
    w_prevs  bytea[] := '{}';
    w_hashes bytea[] := '{}';
    -- ...and each item's game, item, last number, last hash and time.
    i_games  uuid[] := '{}';
    i_items  integer[] := '{}';
    i_seqs   integer[] := '{}';
    i_hashes bytea[] := '{}';
    i_times  timestamptz[] := '{}';
BEGIN
    -- Acknowledged only once durable on this node, whatever its default: for this transaction.
    IF current_setting('synchronous_commit') = 'off' THEN
        PERFORM set_config('synchronous_commit', 'on', true);
    END IF;

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

    FOR pos IN 1 .. items + 1 LOOP
        IF pos <= items THEN
            k := todo[pos];
            game := p_games[k];
        END IF;
        -- The items' writes go together: after the last item, or before an item of a game whose
        -- item came just before (it must see that item's events, command and head).
        IF cardinality(i_items) > 0 AND (pos > items OR game = last_game) THEN
            RETURN QUERY
                WITH written AS (
                    INSERT INTO events (game_id, seq, type, schema_version, data, metadata,
                                        recorded_at, prev_hash, hash)
                    SELECT p_games[w.k], w.seq, p_types[w.i], p_versions[w.i], p_data[w.i], w.meta,
                           w.ts, w.prev, w.hash
                      FROM unnest(w_items, w_seqs, w_index, w_metas, w_times, w_prevs, w_hashes)
                           AS w(k, seq, i, meta, ts, prev, hash)
                ), recorded AS (
                    INSERT INTO commands (game_id, command_id, fingerprint, first_seq, last_seq)
                    SELECT t.g, p_command_ids[t.k], decode(p_fingerprints[t.k], 'hex'),
                           t.seq - p_counts[t.k] + 1, t.seq
                      FROM unnest(i_games, i_items, i_seqs) AS t(g, k, seq)
                     WHERE p_command_ids[t.k] IS NOT NULL
                ), moved AS (
                    UPDATE streams s
                       SET seq = t.seq, last_hash = t.hash, updated_at = t.ts,
                           due_at = to_timestamp(p_due_at[t.k]),
                           -- never after the deadline; where it was when the deadline moves later
                           wake_at = CASE WHEN p_due_at[t.k] IS NULL THEN NULL
                                          WHEN s.wake_at <= to_timestamp(p_due_at[t.k]) THEN s.wake_at
                                          ELSE to_timestamp(p_due_at[t.k]) END
                      FROM unnest(i_games, i_items, i_seqs, i_hashes, i_times) AS t(g, k, seq, hash, ts)
                     WHERE s.game_id = t.g
                )
                -- The caller has data and metadata already: not sent back.
                SELECT NULL::bigint, w.seq, p_types[w.i], p_versions[w.i], NULL::jsonb, NULL::jsonb,
                       w.ts, w.prev, w.hash, false, p_fingerprints[w.k], w.k, NULL::text
                  FROM unnest(w_seqs, w_index, w_times, w_prevs, w_hashes, w_items)
                       WITH ORDINALITY AS w(seq, i, ts, prev, hash, k, n)
                 ORDER BY w.n;
            w_items := '{}'; w_seqs := '{}'; w_index := '{}'; w_metas := '{}'; w_times := '{}';
            w_prevs := '{}'; w_hashes := '{}';
            i_games := '{}'; i_items := '{}'; i_seqs := '{}'; i_hashes := '{}'; i_times := '{}';
        END IF;
        EXIT WHEN pos > items;
        last_game := game;
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
                    SELECT NULL::bigint, e.seq, e.type, e.schema_version, e.data, e.metadata, e.recorded_at,
                           e.prev_hash, e.hash, true, encode(prior.fingerprint, 'hex'), k, NULL::text
                      FROM events e
                     WHERE e.game_id = game AND e.seq BETWEEN prior.first_seq AND prior.last_seq
                     ORDER BY e.seq;
                CONTINUE;
            END IF;
        END IF;

        IF EXISTS (SELECT 1 FROM incidents x WHERE x.game_id = game AND x.cleared_at IS NULL) THEN
            RETURN QUERY SELECT NULL::bigint, cur_seq, NULL::text, NULL::integer, NULL::jsonb,
                                NULL::jsonb, NULL::timestamptz, NULL::bytea, NULL::bytea, false,
                                NULL::text, k, 'incident';
            CONTINUE;
        END IF;

        -- The head must be the log's last event here: never chain onto an event this node lacks.
        SELECT e.seq, e.hash INTO log_seq, log_hash
          FROM events e WHERE e.game_id = game ORDER BY e.seq DESC LIMIT 1;
        IF coalesce(log_seq, 0) <> cur_seq OR (log_seq IS NOT NULL AND log_hash <> cur_hash) THEN
            RETURN QUERY SELECT NULL::bigint, coalesce(log_seq, 0), NULL::text, NULL::integer,
                                NULL::jsonb, NULL::jsonb, NULL::timestamptz, NULL::bytea,
                                NULL::bytea, false, NULL::text, k, 'torn';
            CONTINUE;
        END IF;

        IF p_expected[k] <> cur_seq THEN
            RETURN QUERY SELECT NULL::bigint, cur_seq, NULL::text, NULL::integer, NULL::jsonb,
                                NULL::jsonb, NULL::timestamptz, NULL::bytea, NULL::bytea, false,
                                NULL::text, k,
                                CASE WHEN p_expected[k] > cur_seq THEN 'ahead' ELSE 'stale' END;
            CONTINUE;
        END IF;

        meta := p_metadata[k];  -- whole on the item's first event, less its command and command_id after
        FOR i IN offsets[k] + 1 .. offsets[k] + n LOOP
            cur_seq := cur_seq + 1;
            IF i = offsets[k] + 2 THEN
                meta := p_metadata[k] - 'command' - 'command_id';
            END IF;
            h := playlog_event_digest(cur_hash, game, cur_seq, p_types[i], p_versions[i],
                                      p_data[i], meta, ts);
            IF items = 1 THEN  -- a lone append: its rows cost less than the batch's statement
                RETURN QUERY
                    INSERT INTO events AS e (game_id, seq, type, schema_version, data, metadata,
                                             recorded_at, prev_hash, hash)
                    VALUES (game, cur_seq, p_types[i], p_versions[i], p_data[i], meta,
                            ts, cur_hash, h)
                    -- The caller has data and metadata already: not sent back.
                    RETURNING NULL::bigint, e.seq, e.type, e.schema_version, NULL::jsonb, NULL::jsonb,
                              e.recorded_at, e.prev_hash, e.hash, false, p_fingerprints[k], k, NULL::text;
            ELSE
                w_items := w_items || k;
                w_seqs := w_seqs || cur_seq;
                w_index := w_index || i;
                w_metas := w_metas || meta;
                w_times := w_times || ts;
                w_prevs := w_prevs || cur_hash;
                w_hashes := w_hashes || h;
            END IF;
            cur_hash := h;
        END LOOP;

        IF items = 1 THEN
            IF p_command_ids[k] IS NOT NULL THEN
                INSERT INTO commands (game_id, command_id, fingerprint, first_seq, last_seq)
                VALUES (game, p_command_ids[k], decode(p_fingerprints[k], 'hex'), cur_seq - n + 1, cur_seq);
            END IF;
            UPDATE streams s SET seq = cur_seq, last_hash = cur_hash, updated_at = ts,
                                 due_at = to_timestamp(p_due_at[k]),
                                 -- never after the deadline; where it was when the deadline moves later
                                 wake_at = CASE WHEN p_due_at[k] IS NULL THEN NULL
                                                WHEN s.wake_at <= to_timestamp(p_due_at[k]) THEN s.wake_at
                                                ELSE to_timestamp(p_due_at[k]) END
             WHERE s.game_id = game;
        ELSE
            i_games := i_games || game;
            i_items := i_items || k;
            i_seqs := i_seqs || cur_seq;
            i_hashes := i_hashes || cur_hash;
            i_times := i_times || ts;
        END IF;
    END LOOP;
END
$$;

"""


def append_batch() -> str:
    """``playlog_append_batch`` writing its items' appends in one statement."""
    return _APPEND_BATCH


def upgrade() -> None:
    op.execute(append_batch())


def downgrade() -> None:
    op.execute(str(_revision("0026_leaner_rows.py").append_batch()))
