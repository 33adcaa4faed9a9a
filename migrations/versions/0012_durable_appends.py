"""Acknowledged means durable, on a head the log really has; a game whose log lost one stops.

An append is acknowledged once its transaction commits. Committed with ``synchronous_commit =
off`` (a node's default an operator may choose, as Citus test clusters do), it returns before
its WAL is flushed: a crash of that node, or a Citus shard move with ``force_logical`` (the
walsender sends only flushed WAL while the move compares the subscription with
``pg_current_wal_lsn()``, the write position: docs/scaling-citus.md), loses it after the
service said it happened. ``playlog_append_batch`` (and so ``playlog_append``, one item of it,
the function Citus delegates to the game's node) now raises ``synchronous_commit`` from 'off' to
'on' for its own transaction, on whichever node runs it; any other value already flushes the
node's WAL before the commit returns, and a stronger one (``remote_apply``, say) is kept.

Under the game's lock, before anything is written, each item now also checks:

- the game has no open incident (table ``incidents``, below): else the item comes back as the
  conflict 'incident', and ``playlog_append`` raises SQLSTATE PL423;
- the head in ``streams`` (seq, last hash) is the last event actually in ``events`` for the
  game, on the node doing the write: else 'torn', PL412, DETAIL = the log's last seq. A
  ``streams`` row written by a commit that is not in ``events`` (a move that cut over without
  it) would otherwise chain the next event to an event the log lacks: a hole in the chain.

``incidents``: one row each time the service found a seq it had acknowledged missing from the
log (its cache ahead of the log, or a torn head). An open one (``cleared_at`` null; at most one
per game) stops the game's appends until a moderator clears it after inspection.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-02
"""

import importlib.util
from pathlib import Path
from types import ModuleType

from alembic import op

revision = "0012"
down_revision = "0011"
branch_labels = None
depends_on = None

INCIDENTS = """
CREATE TABLE incidents (
    game_id          uuid NOT NULL,
    raised_at        timestamptz NOT NULL DEFAULT clock_timestamp(),
    reason           text NOT NULL,     -- cache_ahead_of_log, head_not_in_log
    acknowledged_seq integer NOT NULL,  -- the seq the service had acknowledged
    log_seq          integer NOT NULL,  -- the last seq the log had when it was found
    cleared_at       timestamptz,
    cleared_by       text,              -- the moderator
    note             text,
    PRIMARY KEY (game_id, raised_at)
);
-- At most one open incident a game; the append looks for it under the game's lock.
CREATE UNIQUE INDEX incidents_open ON incidents (game_id) WHERE cleared_at IS NULL;
"""

APPEND_BATCH = """
-- Item k appends p_counts[k] events to p_games[k]; the events of all items lie end to end in
-- p_types, p_versions and p_data, in item order. Rows: each item's events (``item`` = k), or
-- one row naming its conflict. Without p_wait, a game another transaction holds is not waited
-- for: its item comes back 'busy'.
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

# One item of a batch, with the refusals raised (PL409 stale, PL422 ahead, PL412 torn head,
# PL423 incident; DETAIL = the seq in question).
APPEND_ONE = """
CREATE OR REPLACE FUNCTION playlog_append(
    p_game uuid, p_expected integer, p_command_id text, p_fingerprint text,
    p_types text[], p_versions integer[], p_data jsonb[], p_metadata jsonb,
    p_due_at double precision DEFAULT NULL
) RETURNS TABLE (
    "position" bigint, seq integer, type text, schema_version integer, data jsonb,
    metadata jsonb, recorded_at timestamptz, prev_hash bytea, hash bytea,
    duplicate boolean, fingerprint text
) LANGUAGE plpgsql AS $$
DECLARE
    r record;
BEGIN
    FOR r IN SELECT * FROM playlog_append_batch(
        ARRAY[p_game], ARRAY[p_expected], ARRAY[p_command_id], ARRAY[p_fingerprint],
        ARRAY[coalesce(cardinality(p_types), 0)], p_types, p_versions, p_data, ARRAY[p_metadata],
        ARRAY[p_due_at]
    ) LOOP
        IF r.conflict = 'ahead' THEN
            RAISE EXCEPTION 'expected seq % is ahead of the game (at %)', p_expected, r.seq
                USING ERRCODE = 'PL422', DETAIL = r.seq::text;
        ELSIF r.conflict = 'stale' THEN
            RAISE EXCEPTION 'expected seq % is stale (game is at %)', p_expected, r.seq
                USING ERRCODE = 'PL409', DETAIL = r.seq::text;
        ELSIF r.conflict = 'torn' THEN
            RAISE EXCEPTION 'the head of game % is not the last event of its log (at %)', p_game, r.seq
                USING ERRCODE = 'PL412', DETAIL = r.seq::text;
        ELSIF r.conflict = 'incident' THEN
            RAISE EXCEPTION 'game % has an open incident: a moderator must clear it', p_game
                USING ERRCODE = 'PL423', DETAIL = r.seq::text;
        END IF;
        "position" := r.position; seq := r.seq; type := r.type; schema_version := r.schema_version;
        data := r.data; metadata := r.metadata; recorded_at := r.recorded_at;
        prev_hash := r.prev_hash; hash := r.hash; duplicate := r.duplicate; fingerprint := r.fingerprint;
        RETURN NEXT;
    END LOOP;
END
$$;
"""


def _revision(name: str) -> ModuleType:
    """An earlier migration's module (a module whose name no import takes)."""
    path = Path(__file__).with_name(name)
    spec = importlib.util.spec_from_file_location(f"playlog_migration_{name[:4]}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def upgrade() -> None:
    op.execute(INCIDENTS)
    op.execute(APPEND_BATCH)
    op.execute(APPEND_ONE)


def downgrade() -> None:
    replace = "CREATE OR REPLACE FUNCTION"
    op.execute(str(_revision("0011_batches_never_wait.py").APPEND_BATCH).replace("CREATE FUNCTION", replace))
    op.execute(str(_revision("0010_batched_appends.py").APPEND_ONE).replace("CREATE FUNCTION", replace))
    op.execute("DROP TABLE incidents")
