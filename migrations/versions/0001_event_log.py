"""The append-only event log: streams, events, commands, the append function and the guards.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


# The append as first written; migration 0010 makes it a wrapper and restores this on downgrade.
APPEND_FUNCTION = """
-- Append a batch of events to one game in one round trip.
-- Errors: PL409 (stale expected seq; DETAIL = current seq), PL422 (expected seq ahead).
CREATE FUNCTION playlog_append(
    p_game uuid, p_expected integer, p_command_id text, p_fingerprint text,
    p_types text[], p_versions integer[], p_data jsonb[], p_metadata jsonb,
    p_due_at double precision DEFAULT NULL
) RETURNS TABLE (
    "position" bigint, seq integer, type text, schema_version integer, data jsonb,
    metadata jsonb, recorded_at timestamptz, prev_hash bytea, hash bytea,
    duplicate boolean, fingerprint text
) LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    cur_seq  integer;
    cur_hash bytea;
    prior    commands%ROWTYPE;
    ts       timestamptz;
    h        bytea;
    i        integer;
BEGIN
    SELECT s.seq, s.last_hash INTO cur_seq, cur_hash
      FROM streams s WHERE s.game_id = p_game FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO streams AS s (game_id) VALUES (p_game)
            ON CONFLICT (game_id) DO NOTHING;
        SELECT s.seq, s.last_hash INTO cur_seq, cur_hash
          FROM streams s WHERE s.game_id = p_game FOR UPDATE;
    END IF;

    -- Taken under the game's lock, so recorded_at never goes back within a game.
    ts := clock_timestamp();

    IF p_command_id IS NOT NULL THEN
        SELECT * INTO prior FROM commands c
         WHERE c.game_id = p_game AND c.command_id = p_command_id;
        IF FOUND THEN
            RETURN QUERY
                SELECT e.position, e.seq, e.type, e.schema_version, e.data, e.metadata,
                       e.recorded_at, e.prev_hash, e.hash, true, prior.fingerprint
                  FROM events e
                 WHERE e.game_id = p_game AND e.seq BETWEEN prior.first_seq AND prior.last_seq
                 ORDER BY e.seq;
            RETURN;
        END IF;
    END IF;

    IF p_expected > cur_seq THEN
        RAISE EXCEPTION 'expected seq % is ahead of the game (at %)', p_expected, cur_seq
            USING ERRCODE = 'PL422', DETAIL = cur_seq::text;
    END IF;
    IF p_expected <> cur_seq THEN
        RAISE EXCEPTION 'expected seq % is stale (game is at %)', p_expected, cur_seq
            USING ERRCODE = 'PL409', DETAIL = cur_seq::text;
    END IF;

    FOR i IN 1 .. coalesce(array_length(p_types, 1), 0) LOOP
        h := playlog_event_digest(cur_hash, p_game, cur_seq + i, p_types[i], p_versions[i],
                                  p_data[i], p_metadata, ts);
        RETURN QUERY
            INSERT INTO events AS e (game_id, seq, type, schema_version, data, metadata,
                                     command_id, recorded_at, prev_hash, hash)
            VALUES (p_game, cur_seq + i, p_types[i], p_versions[i], p_data[i], p_metadata,
                    p_command_id, ts, cur_hash, h)
            -- The caller has data and metadata already: not sent back.
            RETURNING e.position, e.seq, e.type, e.schema_version, NULL::jsonb, NULL::jsonb,
                      e.recorded_at, e.prev_hash, e.hash, false, p_fingerprint;
        cur_hash := h;
    END LOOP;

    IF p_command_id IS NOT NULL THEN
        INSERT INTO commands (game_id, command_id, fingerprint, first_seq, last_seq)
        VALUES (p_game, p_command_id, p_fingerprint, cur_seq + 1,
                cur_seq + coalesce(array_length(p_types, 1), 0));
    END IF;
    UPDATE streams s SET seq = cur_seq + coalesce(array_length(p_types, 1), 0),
                         last_hash = cur_hash, updated_at = ts,
                         due_at = to_timestamp(p_due_at)
     WHERE s.game_id = p_game;
END
$$;
"""


def upgrade() -> None:
    op.execute(
        """
        -- One row per game: its current seq and last hash. Locking this row orders the
        -- appends of one game only; other games append in parallel.
        CREATE TABLE streams (
            game_id    uuid PRIMARY KEY,
            seq        integer NOT NULL DEFAULT 0 CHECK (seq >= 0),
            last_hash  bytea NOT NULL DEFAULT decode(repeat('00', 32), 'hex'),
            updated_at timestamptz NOT NULL DEFAULT now(),
            -- When the game next needs the server to act on its own (a reaction window or a
            -- decision timeout), as the game's rules computed it after the last append.
            due_at     timestamptz
        );
        CREATE INDEX streams_due ON streams (due_at) WHERE due_at IS NOT NULL;

        CREATE TABLE events (
            position       bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            tx_id          xid8 NOT NULL DEFAULT pg_current_xact_id(),
            game_id        uuid NOT NULL,
            seq            integer NOT NULL CHECK (seq > 0),
            type           text NOT NULL,
            schema_version integer NOT NULL DEFAULT 1,
            data           jsonb NOT NULL,
            metadata       jsonb NOT NULL DEFAULT '{}'::jsonb,
            command_id     text,
            recorded_at    timestamptz NOT NULL DEFAULT now(),
            prev_hash      bytea NOT NULL,
            hash           bytea NOT NULL,
            CONSTRAINT events_game_seq UNIQUE (game_id, seq)
        );
        -- The subscribers' cursor: (tx_id, position), see service/store.py.
        CREATE INDEX events_tx_position ON events (tx_id, position);

        -- A command applied to a game, once: the unique key that makes retries idempotent.
        -- It names the events the command appended and a fingerprint of the request.
        CREATE TABLE commands (
            game_id     uuid NOT NULL,
            command_id  text NOT NULL,
            fingerprint text,
            first_seq   integer NOT NULL,
            last_seq    integer NOT NULL,
            recorded_at timestamptz NOT NULL DEFAULT now(),
            CONSTRAINT commands_once PRIMARY KEY (game_id, command_id)
        );

        -- The bytes an event's hash covers: jsonb's text form is canonical (sorted keys,
        -- fixed spacing), so the database and any verifier compute the same digest.
        CREATE FUNCTION playlog_event_digest(
            p_prev bytea, p_game uuid, p_seq integer, p_type text, p_version integer,
            p_data jsonb, p_metadata jsonb, p_recorded_at timestamptz
        ) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
            SELECT sha256(p_prev || convert_to(jsonb_build_object(
                'game_id', p_game, 'seq', p_seq, 'type', p_type, 'schema_version', p_version,
                'data', p_data, 'metadata', p_metadata,
                'recorded_at', extract(epoch FROM p_recorded_at)
            )::text, 'UTF8'))
        $$;

        """
    )
    op.execute(APPEND_FUNCTION)
    op.execute(
        """
        -- The log is append-only, enforced by the database rather than by convention.
        CREATE FUNCTION playlog_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            RAISE EXCEPTION 'events are append-only: % refused', TG_OP
                USING ERRCODE = 'PL403';
        END
        $$;
        CREATE TRIGGER events_append_only
            BEFORE UPDATE OR DELETE ON events
            FOR EACH ROW EXECUTE FUNCTION playlog_refuse_change();
        CREATE TRIGGER events_no_truncate
            BEFORE TRUNCATE ON events
            FOR EACH STATEMENT EXECUTE FUNCTION playlog_refuse_change();
        """
    )


def downgrade() -> None:
    op.execute(
        """
        DROP TABLE events;
        DROP FUNCTION playlog_refuse_change();
        DROP FUNCTION playlog_append(
            uuid, integer, text, text, text[], integer[], jsonb[], jsonb, double precision
        );
        DROP FUNCTION playlog_event_digest(bytea, uuid, integer, text, integer, jsonb, jsonb, timestamptz);
        DROP TABLE commands;
        DROP TABLE streams;
        """
    )
