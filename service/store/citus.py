"""Distributing the schema on a Citus coordinator (``playlog citus distribute``).

An explicit step, run once after ``playlog db upgrade`` against the coordinator: the migrations
stay plain PostgreSQL. What goes where:

- ``streams``, ``events``, ``commands``, ``incidents``, ``lobby_games``, ``disputes``,
  ``access_records``, ``game_seeds``, ``personal_texts`` and ``rated_games`` are distributed by
  ``game_id`` in one colocation group: everything one append or one projection of a game touches
  lives on one node;
- ``players`` and ``player_games`` by ``player_id``, colocated with each other in a group of their
  own: Citus would put them in the games' group (both keys are uuid, the shard counts equal), and
  every move of a game shard would move players too. A cluster distributed before keeps its
  shards; their group is split off here (no data moves);
- ``caller_keys`` by ``caller`` (a key is looked up by its caller alone);
- ``moderators`` and ``projector_checkpoints`` (a handful of rows, read everywhere) are reference
  tables;
- the transparency log's tables (``log_leaves``, ``log_nodes``, ``log_checkpoints``,
  ``log_cosignatures``) are reference tables too: one log for the whole cluster, written by its
  one sequencer through the coordinator, and the sequencer's look for new heads (``streams``
  against ``log_leaves``) is a join of a distributed table with a reference table, which every
  node answers for its own shards;
- ``playlog_append`` is delegated to the node holding the game (``force_delegation``): one round
  trip from the coordinator, the same hash chain, idempotency and error codes (PL409, PL422), run
  as a single-node transaction there. The service sends its appends one by one here: a batch
  (``playlog_append_batch``, which ``playlog_append`` calls with one item) spans nodes.

The append-only triggers on ``events`` need ``citus.enable_unsafe_triggers`` (set for the
database, so later DDL on the table keeps working). Every step is skipped when already done:
running it again is harmless.
"""

from __future__ import annotations

import asyncpg

from service.runtime.log import get_logger

log = get_logger("playlog.citus")

BY_GAME = (
    "streams",
    "events",
    "commands",
    "incidents",
    "lobby_games",
    "disputes",
    "access_records",
    "game_seeds",
    "personal_texts",
    "rated_games",
)  # the first one anchors the group
BY_PLAYER = ("players", "player_games")
BY_CALLER = ("caller_keys",)
REFERENCE = (
    "moderators",
    "projector_checkpoints",
    "log_leaves",
    "log_nodes",
    "log_checkpoints",  # before log_cosignatures, whose foreign key points to it
    "log_cosignatures",
)
APPEND = "playlog_append(uuid, integer, text, text, text[], integer[], jsonb[], jsonb, double precision)"
HELPERS = (
    "playlog_event_digest(bytea, uuid, integer, text, integer, jsonb, jsonb, timestamptz)",
    # playlog_append is one item of a batch (migration 0010): the node runs the batch's function.
    "playlog_append_batch(uuid[], integer[], text[], text[], integer[], text[], integer[], jsonb[],"
    " jsonb[], double precision[], boolean)",
    "playlog_refuse_change()",
)


async def _colocated(conn: asyncpg.Connection, one: str, other: str) -> bool:
    return bool(
        await conn.fetchval(
            "SELECT a.colocationid = b.colocationid FROM pg_dist_partition a, pg_dist_partition b"
            " WHERE a.logicalrelid = $1::regclass AND b.logicalrelid = $2::regclass",
            one,
            other,
        )
    )


class NotCitus(Exception):
    """The database has no citus extension."""


async def is_citus(conn: asyncpg.Connection) -> bool:
    return bool(await conn.fetchval("SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus')"))


async def distribute(conn: asyncpg.Connection, *, shard_count: int | None = None) -> list[str]:
    """Distribute what is not yet distributed; returns what was done, one line a step."""
    if not await is_citus(conn):
        raise NotCitus("the database has no citus extension: run this against a Citus coordinator")
    done: list[str] = []
    database = await conn.fetchval("SELECT current_database()")
    await conn.execute(f'ALTER DATABASE "{database}" SET citus.enable_unsafe_triggers TO on')
    await conn.execute("SET citus.enable_unsafe_triggers TO on")
    if shard_count is not None:
        await conn.execute(f"SET citus.shard_count TO {int(shard_count)}")
    existing = {
        row["table_name"]: row["citus_table_type"]
        for row in await conn.fetch("SELECT table_name::text, citus_table_type FROM citus_tables")
    }
    for table, column, anchor in [
        *((t, "game_id", BY_GAME[0]) for t in BY_GAME),
        *((t, "player_id", BY_PLAYER[0]) for t in BY_PLAYER),
        *((t, "caller", BY_CALLER[0]) for t in BY_CALLER),
    ]:
        if table in existing:
            continue
        # The players' anchor starts a group of its own ('none'), never the games'.
        colocate = anchor if table != anchor else ("default" if table == BY_GAME[0] else "none")
        await conn.execute(
            "SELECT create_distributed_table($1, $2, colocate_with := $3)", table, column, colocate
        )
        done.append(f"{table}: distributed by {column}" + ("" if table == anchor else f" with {anchor}"))
    if await _colocated(conn, BY_PLAYER[0], BY_GAME[0]):
        await conn.execute(
            "SELECT update_distributed_table_colocation($1, colocate_with := 'none')", BY_PLAYER[0]
        )
        for table in BY_PLAYER[1:]:
            await conn.execute(
                "SELECT update_distributed_table_colocation($1, colocate_with := $2)", table, BY_PLAYER[0]
            )
        done.append(f"{', '.join(BY_PLAYER)}: a colocation group apart from the games'")
    for table in REFERENCE:
        if table not in existing:
            await conn.execute("SELECT create_reference_table($1)", table)
            done.append(f"{table}: reference table")
    delegated = await conn.fetchval(
        "SELECT distribution_argument_index IS NOT NULL FROM pg_dist_object"
        " WHERE objid = $1::regprocedure AND classid = 'pg_proc'::regclass",
        APPEND,
    )
    if not delegated:
        for helper in HELPERS:
            await conn.execute("SELECT create_distributed_function($1)", helper)
        await conn.execute(
            "SELECT create_distributed_function($1, distribution_arg_name := 'p_game',"
            " colocate_with := 'events', force_delegation := true)",
            APPEND,
        )
        done.append("playlog_append: delegated to the node of p_game")
    log.info("citus_distributed", steps=done)
    return done
