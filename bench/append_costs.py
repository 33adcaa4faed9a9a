"""What each part of an append costs PostgreSQL, next to one committed row, in one run.

Run: ``.venv/bin/python bench/append_costs.py [--writers 8] [--calls 400] [--rounds 3] [--pgbench-seconds 3]``

Issue 17 asks that each row, index and round trip of a command be kept only where it pays for
itself. This bench puts a price on each part. W writers (one connection each, each on its own
games) append with one candidate at a time a command's events (2 or 3, 2.6 on average, as
`bench/wal.py` counts per command), ``--calls`` appends each, the candidates interleaved for
``--rounds`` rounds on one fresh database. Each figure is the median over the rounds of
PostgreSQL's CPU (postmaster and every backend) per append.

- **pgbench's row**: pgbench's comparable event row (bench/lib/common.py), one INSERT per
  transaction, run by pgbench itself after each round as `bench/commands.py` runs it: the
  baseline the target is stated against. pgbench sends each INSERT as text, parsed and planned;
- **one row**: the same INSERT prepared once per connection, as the service sends its queries;
- **playlog_append**: one append alone, as Citus and single callers send it (one item of a
  batch, migration 0010);
- **playlog_append_batch, 1 append a call**: what the service sends when it is quiet;
- the same function without one part each (copies made from the deployed text, edited): without
  the hash digest, without the idempotency row (its lookup and its insert), without the lock on
  the game's row. Each breaks a promise of the log; they only show what that part costs;
- **2, 4, 8 appends a call**: what the service sends under load (service/store/batching.py): that
  many games' appends in one call, one transaction, one commit;
- **one row per command**: a sketch of another shape of the log. The same lock, lookup and
  head update, and one digest, but the command's events in one row (a jsonb array) with the
  idempotency key as a unique index on that row;
- **and no head row**: that sketch without the game's row in ``streams``: the previous command's
  row gives the chain's last hash, and the row's key refuses a second writer after the same seq.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import statistics
import sys
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

import asyncpg

from bench.lib import common

BODY = json.loads(
    '{"type":"CardPlayed","seat":2,"cards":["attack"],"target":null,"named":null,"combo":false,'
    '"chain":0,"deadline":1767225600.125,"hand_sizes":[4,7,5,6,3],"draw_pile_size":31,'
    '"discard":["skip","attack","favor","shuffle","nope"],'
    '"note":"a comparable body of about three hundred bytes, padded"}'
)
METADATA = '{"command_id":"seat:2:0123456789abcdef0123456789abcdef","actor":"seat:2","correlation_id":null}'

BATCH_TABLE = """
CREATE TABLE {table} (
    game_id     uuid NOT NULL,
    first_seq   integer NOT NULL,
    last_seq    integer NOT NULL,
    command_id  text,
    fingerprint text,
    types       text[] NOT NULL,
    data        jsonb NOT NULL,
    metadata    jsonb NOT NULL,
    recorded_at timestamptz NOT NULL,
    prev_hash   bytea NOT NULL,
    hash        bytea NOT NULL,
    PRIMARY KEY (game_id, first_seq)
);
CREATE UNIQUE INDEX {table}_once ON {table} (game_id, command_id);
"""

# A command's events in one row of ``{table}``, chained from ``cur_seq``/``cur_hash``: what
# ``{lock_head}`` (before the idempotency lookup) or ``{read_head}`` (after it) sets them to, and
# ``{write_head}`` after the insert.
BATCH_APPEND = """
CREATE FUNCTION {name}(
    p_game uuid, p_expected integer, p_command_id text, p_fingerprint text,
    p_types text[], p_versions integer[], p_data jsonb[], p_metadata jsonb,
    p_due_at double precision DEFAULT NULL
) RETURNS TABLE (first_seq integer, recorded_at timestamptz, hash bytea)
LANGUAGE plpgsql AS $$
#variable_conflict use_column
DECLARE
    cur_seq  integer;
    cur_hash bytea;
    ts       timestamptz;
    n        integer := coalesce(array_length(p_types, 1), 0);
    body     jsonb := to_jsonb(p_data);
    h        bytea;
BEGIN
{lock_head}
    ts := clock_timestamp();
    IF p_command_id IS NOT NULL THEN
        RETURN QUERY SELECT b.first_seq, b.recorded_at, b.hash FROM {table} b
         WHERE b.game_id = p_game AND b.command_id = p_command_id;
        IF FOUND THEN
            RETURN;
        END IF;
    END IF;
{read_head}
    IF p_expected <> cur_seq THEN
        RAISE EXCEPTION 'expected seq % (game is at %)', p_expected, cur_seq
            USING ERRCODE = 'PL409', DETAIL = cur_seq::text;
    END IF;
    h := playlog_event_digest(cur_hash, p_game, cur_seq + 1, p_types[1], p_versions[1],
                              body, p_metadata, ts);
    RETURN QUERY
        INSERT INTO {table} AS b (game_id, first_seq, last_seq, command_id, fingerprint,
                                  types, data, metadata, recorded_at, prev_hash, hash)
        VALUES (p_game, cur_seq + 1, cur_seq + n, p_command_id, p_fingerprint, p_types, body,
                p_metadata, ts, cur_hash, h)
        RETURNING b.first_seq, b.recorded_at, b.hash;
{write_head}
END
$$;
"""

# The same lock, head row and update as playlog_append.
LOCK_HEAD = """
    SELECT s.seq, s.last_hash INTO cur_seq, cur_hash
      FROM streams s WHERE s.game_id = p_game FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO streams AS s (game_id) VALUES (p_game) ON CONFLICT (game_id) DO NOTHING;
        SELECT s.seq, s.last_hash INTO cur_seq, cur_hash
          FROM streams s WHERE s.game_id = p_game FOR UPDATE;
    END IF;"""
WRITE_HEAD = """
    UPDATE streams s SET seq = cur_seq + n, last_hash = h, updated_at = ts,
                         due_at = to_timestamp(p_due_at)
     WHERE s.game_id = p_game;"""

# No head row: the previous command's row gives the chain's last hash; the key (game_id,
# first_seq) refuses a second writer after the same seq (a unique violation where the lock gave
# PL409).
READ_PREVIOUS = """
    SELECT b.last_seq, b.hash INTO cur_seq, cur_hash FROM bench_batches_alone b
     WHERE b.game_id = p_game ORDER BY b.first_seq DESC LIMIT 1;
    IF NOT FOUND THEN  -- the game's first command
        cur_seq := 0;
        cur_hash := decode(repeat('00', 32), 'hex');
    END IF;"""

BATCHES = "".join(
    [
        BATCH_TABLE.format(table="bench_batches"),
        BATCH_APPEND.format(
            name="bench_append_batch", table="bench_batches",
            lock_head=LOCK_HEAD, read_head="", write_head=WRITE_HEAD,
        ),
        BATCH_TABLE.format(table="bench_batches_alone"),
        BATCH_APPEND.format(
            name="bench_append_batch_alone", table="bench_batches_alone",
            lock_head="", read_head=READ_PREVIOUS, write_head="",
        ),
    ]
)  # fmt: skip


def _edited(source: str, name: str, edits: list[tuple[str, str]]) -> str:
    """The deployed function's text under another name, each edit applied exactly where found."""
    text = source.replace("FUNCTION public.playlog_append_batch(", f"FUNCTION public.{name}(", 1)
    for pattern, replacement in edits:
        text, count = re.subn(pattern, replacement, text, flags=re.S)
        if count == 0:
            raise RuntimeError(f"{name}: {pattern!r} not found in playlog_append_batch; update this bench")
    return text


NO_DIGEST = [(r"h := playlog_event_digest\(.*?\);", "h := cur_hash;")]
NO_IDEMPOTENCY = [
    (r"IF p_command_ids\[k\] IS NOT NULL THEN\s+SELECT \* INTO prior.*?END IF;\s+END IF;", ""),
    (r"IF p_command_ids\[k\] IS NOT NULL THEN\s+INSERT INTO commands.*?END IF;", ""),  # a lone append's
    (r"WHERE p_command_ids\[t\.k\] IS NOT NULL", "WHERE false"),  # a batch's, written together
]
NO_LOCK = [(r" FOR UPDATE( SKIP LOCKED)?", "")]

APPEND_ARGS = "($1, $2, $3, $4, $5, $6, $7, $8, $9)"
PGBENCH = "pgbench's row (pgbench, simple protocol)"
ONE_ROW = "one row (that INSERT, prepared)"
DEPLOYED = "playlog_append_batch, 1 append a call"
# A function called with one append (its name), or playlog_append_batch and the copies of it
# with B appends a call (its name, B): B games, one transaction.
CANDIDATES: dict[str, str | tuple[str, int] | None] = {
    ONE_ROW: None,
    "playlog_append (one append, alone)": "playlog_append",
    DEPLOYED: ("playlog_append_batch", 1),
    "  without the digest": ("bench_append_no_digest", 1),
    "  without the idempotency row": ("bench_append_no_idempotency", 1),
    "  without the lock": ("bench_append_no_lock", 1),
    "  2 appends a call": ("playlog_append_batch", 2),
    "  4 appends a call": ("playlog_append_batch", 4),
    "  8 appends a call": ("playlog_append_batch", 8),
    "one row per command (sketch)": "bench_append_batch",
    "  and no head row to lock and update": "bench_append_batch_alone",
}


async def prepare(url: str) -> None:
    conn = await asyncpg.connect(url)
    try:
        await conn.execute(common.PGBENCH_TABLE)
        source = await conn.fetchval("SELECT pg_get_functiondef('playlog_append_batch'::regproc)")
        await conn.execute(_edited(source, "bench_append_no_digest", NO_DIGEST))
        await conn.execute(_edited(source, "bench_append_no_idempotency", NO_IDEMPOTENCY))
        await conn.execute(_edited(source, "bench_append_no_lock", NO_LOCK))
        await conn.execute(BATCHES)
    finally:
        await conn.close()


async def writer(
    conn: asyncpg.Connection, function: str | tuple[str, int] | None, calls: int, rng: random.Random
) -> None:
    body = json.dumps(BODY)
    if isinstance(function, tuple):
        await batched_writer(conn, *function, calls, rng, body)
        return
    if function is None:
        insert = await conn.prepare(
            "INSERT INTO pgbench_events (game_id, seq, type, data, metadata, command_id, prev_hash, hash)"
            " VALUES ($1, $2, 'CardPlayed', $3::jsonb, $4::jsonb, $5, sha256($6), sha256($6))"
        )
        for _ in range(calls):
            seq = rng.randrange(1, 2_000_000_000)
            await insert.fetch(uuid.uuid4(), seq, body, METADATA, uuid.uuid4().hex, str(seq).encode())
        return
    append = await conn.prepare(f"SELECT * FROM {function}{APPEND_ARGS}")
    games = {uuid.uuid4(): 0 for _ in range(8)}
    for n in range(calls):
        game = list(games)[n % len(games)]
        events = rng.choice((2, 2, 3, 3, 3))
        await append.fetch(
            game, games[game], uuid.uuid4().hex, "0f" * 32,
            ["CardPlayed"] * events, [1] * events, [body] * events, METADATA, None,
        )  # fmt: skip
        games[game] += events


async def batched_writer(
    conn: asyncpg.Connection, function: str, size: int, calls: int, rng: random.Random, body: str
) -> None:
    """``calls`` appends, ``size`` a call of ``function`` (shaped as playlog_append_batch), each
    on another of 8 games."""
    append = await conn.prepare(f"SELECT * FROM {function}($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, false)")
    games = {uuid.uuid4(): 0 for _ in range(8)}
    order = list(games)
    for n in range(0, calls, size):
        chosen = [order[(n + k) % len(order)] for k in range(size)]
        counts = [rng.choice((2, 2, 3, 3, 3)) for _ in chosen]
        events = sum(counts)
        await append.fetch(
            chosen, [games[g] for g in chosen], [uuid.uuid4().hex for _ in chosen], ["0f" * 32] * size,
            counts, ["CardPlayed"] * events, [1] * events, [body] * events, [METADATA] * size, [None] * size,
        )  # fmt: skip
        for game, count in zip(chosen, counts, strict=True):
            games[game] += count


async def one_round(url: str, writers: int, calls: int, seed: int) -> dict[str, float]:
    conns = [await asyncpg.connect(url) for _ in range(writers)]
    cpu_ms: dict[str, float] = {}
    try:
        order = list(CANDIDATES.items())
        random.Random(seed).shuffle(order)  # no candidate always first or last
        for label, function in order:
            before = common.postgres_cpu_seconds(url)
            await asyncio.gather(
                *(writer(c, function, calls, random.Random(seed * 100 + i)) for i, c in enumerate(conns))
            )
            cpu_ms[label] = 1000 * (common.postgres_cpu_seconds(url) - before) / (writers * calls)
    finally:
        for conn in conns:
            await conn.close()
    return cpu_ms


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--calls", type=int, default=400, help="appends per writer per candidate per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pgbench-seconds", type=float, default=3.0, help="pgbench's run per round")
    args = parser.parse_args()
    common.install_uvloop()
    admin = common.start_postgres()
    url, name = common.fresh_database(admin, "append_costs")
    try:
        asyncio.run(prepare(url))
        rounds = []
        for r in range(args.rounds):
            costs = asyncio.run(one_round(url, args.writers, args.calls, r + 1))
            # The row the target is stated against, as bench/commands.py measures it:
            # pgbench's own client, its simple protocol (each INSERT parsed and planned).
            pgbench = common.pgbench(url, clients=args.writers, seconds=args.pgbench_seconds)
            costs[PGBENCH] = pgbench["pg_cpu_ms"]
            rounds.append(costs)
    finally:
        common.drop_database(admin, name)

    one_row = statistics.median(r[ONE_ROW] for r in rounds)
    pgbench_row = statistics.median(r[PGBENCH] for r in rounds)
    deployed = statistics.median(r[DEPLOYED] for r in rounds)
    rows: list[list[Any]] = []
    for label in [PGBENCH, *CANDIDATES]:
        values = [r[label] for r in rounds]
        ms = statistics.median(values)
        rows.append([
            label, f"{ms:.3f}", f"{min(values):.3f}-{max(values):.3f}", f"{ms / one_row:.2f}x",
            f"{ms / pgbench_row:.2f}x", "" if label in (PGBENCH, ONE_ROW) else f"{ms - deployed:+.3f}",
        ])  # fmt: skip
    print(f"playlog bench/append_costs.py  ({common.machine()})")
    common.print_table(
        f"PostgreSQL CPU per append, {args.writers} writers x {args.calls} appends, "
        f"median of {args.rounds} rounds",
        ["candidate", "ms", "range", "x one row", "x pgbench row", "vs 1 append a call"],
        rows,
    )


if __name__ == "__main__":
    main()
