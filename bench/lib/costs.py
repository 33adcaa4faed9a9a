"""What a command costs, counted rather than timed: Python function calls, the database's round
trips and the bytes of their arguments, committed transactions and WAL bytes. None of these moves
with the machine's load, so a change can be compared before and after on a busy machine, and
``bench/budget.toml`` can hold each of them under a limit (tests/integration/test_cost_budget.py).

The app runs in process (bench/lib/inprocess.py: raw ASGI, its lifespan, projector included) and
bot games are played through it. The parts here are shared by bench/calls.py (the calls),
bench/wal.py (what PostgreSQL writes) and ``measure``, the budget's figures over a fixed mix.
"""

from __future__ import annotations

import asyncio
import cProfile
import dataclasses
import datetime
import json
import pstats
import random
import re
import tomllib
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg

from bench.lib import common
from bench.lib.inprocess import REQUEST, Asgi, new_counts, play, running_app

BUDGET = Path(__file__).resolve().parents[1] / "budget.toml"

# -- Python function calls ------------------------------------------------------------------------


def calls(profile: cProfile.Profile) -> int:
    """Every Python (and C) function call the profile counted."""
    return int(pstats.Stats(profile).total_calls)  # type: ignore[attr-defined]


# -- what PostgreSQL wrote --------------------------------------------------------------------------

_TOTALS = """
SELECT (SELECT pg_current_wal_lsn() - '0/0')::float8 AS wal,
       (SELECT wal_records FROM pg_stat_wal)::float8 AS records,
       (SELECT wal_fpi FROM pg_stat_wal)::float8 AS fpi,
       (SELECT xact_commit FROM pg_stat_database WHERE datname = current_database())::float8 AS commits
"""
_TABLES = """
SELECT t.relname, t.n_tup_ins, t.n_tup_upd, t.n_tup_hot_upd, t.n_tup_del,
       (SELECT count(*) FROM pg_index i WHERE i.indrelid = t.relid AND i.indpred IS NULL) AS indexes
  FROM pg_stat_user_tables t
"""
_FUNCTIONS = "SELECT funcname, calls, self_time FROM pg_stat_user_functions"
_BATCH = "SELECT * FROM playlog_append_batch("  # service/store/batching.py's call
_BEHIND = (
    "SELECT count(*) FROM streams s LEFT JOIN lobby_games g USING (game_id)"
    " WHERE s.seq > coalesce(g.version, 0)"
)

# The database's own relations (FirstNormalObjectId and up: its tables, indexes, sequences and
# their TOAST), not the system catalogs: what its autovacuum does to pg_class is no command's.
_FILENODES = """
SELECT pg_relation_filenode(oid) FROM pg_class
 WHERE oid >= 16384 AND pg_relation_filenode(oid) IS NOT NULL
"""
_RECORDS = """
SELECT xid::text::bigint, record_length, coalesce(block_ref, '')
  FROM pg_get_wal_records_info($1::text::pg_lsn, $2::text::pg_lsn)
"""
_BLOCK = re.compile(r"rel \d+/(\d+)/(\d+)")  # a block reference: tablespace/database/filenode


@dataclass
class Snapshot:
    """PostgreSQL's counters at one moment: WAL bytes, records and full-page images and the
    database's committed transactions (``totals``); rows written per table; calls and time of the
    PL/pgSQL functions (with ``track_functions = 'pl'``); the position WAL is flushed to (``lsn``)
    and the files of the database's own tables and indexes (``filenodes``), to read the window's
    WAL records (``database_wal``)."""

    totals: dict[str, float]
    tables: dict[str, list[float]]
    functions: dict[str, list[float]]
    lsn: str
    filenodes: set[int]


async def snapshot(conn: asyncpg.Connection) -> Snapshot:
    totals = dict(await conn.fetchrow(_TOTALS))
    tables = {r[0]: [float(x) for x in r[1:]] for r in await conn.fetch(_TABLES)}
    functions = {r[0]: [float(r[1]), float(r[2])] for r in await conn.fetch(_FUNCTIONS)}
    lsn = str(await conn.fetchval("SELECT pg_current_wal_flush_lsn()::text"))
    filenodes = {r[0] for r in await conn.fetch(_FILENODES)}
    return Snapshot(totals, tables, functions, lsn, filenodes)


async def database_wal(conn: asyncpg.Connection, before: Snapshot, after: Snapshot) -> float:
    """The WAL bytes between two snapshots that this database's commands wrote, read record by
    record with pg_walinspect (created here if need be: it reads the WAL after the fact): each
    record that changes a block of one of the database's own relations, and each record without
    a block (a commit) of a transaction that changed one or of none that changed another's. Left
    out: another database's records (its autovacuum, its tests) and this database's catalogs',
    and the records of no transaction that name no block (checkpoints, the standby snapshots),
    which no command writes. Each record is counted as it lies in the WAL, padded to 8 bytes; the
    pages' headers (24 bytes in 8 KB) are not."""
    try:
        await conn.execute("CREATE EXTENSION IF NOT EXISTS pg_walinspect")
    except asyncpg.PostgresError as error:
        raise SystemExit(
            f"the WAL figure reads the window's records with pg_walinspect (PostgreSQL 15 and "
            f"later, its contrib, a superuser to create it): {error}"
        ) from error
    database = await conn.fetchval("SELECT oid FROM pg_database WHERE datname = current_database()")
    ours = before.filenodes | after.filenodes
    counted = 0
    mine: set[int] = set()  # the transactions that changed the database's relations
    others: set[int] = set()  # those that changed another's
    # Told apart once every record is read: a transaction's lock records come before its changes.
    blockless: list[tuple[int, int]] = []
    for xid, length, blocks in await conn.fetch(_RECORDS, before.lsn, after.lsn):
        aligned = (length + 7) // 8 * 8
        refs = [(int(db), int(node)) for db, node in _BLOCK.findall(blocks)]
        if not refs:
            blockless.append((xid, aligned))
        elif any(db == database and node in ours for db, node in refs):
            counted += aligned
            mine.add(xid)
        else:
            others.add(xid)
    for xid, aligned in blockless:
        if xid and (xid in mine or xid not in others):
            counted += aligned
    return float(counted)


async def checkpoint(url: str) -> None:
    """Before the counted window: no autovacuum on the database's tables (its transactions and
    WAL come when its timer says, not with the commands), the PL/pgSQL functions' statistics
    switched on, and a ``CHECKPOINT``, so that each run's first change to a page writes its
    full-page image in the window, as the last run's did."""
    conn = await asyncpg.connect(url)
    try:
        database = await conn.fetchval("SELECT current_database()")
        await conn.execute(f"ALTER DATABASE \"{database}\" SET track_functions = 'pl'")
        for table in await conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'"):
            await conn.execute(f'ALTER TABLE "{table[0]}" SET (autovacuum_enabled = false)')
        # The catalog rows those statements wrote, read once here: the measured app's first read
        # would set their hint bits, a full-page image each (the data checksums are on), in
        # bench/wal.py's WAL of the whole server.
        for catalog in ("pg_class", "pg_index", "pg_attribute", "pg_proc", "pg_type", "pg_database"):
            await conn.execute(f"SELECT count(*) FROM {catalog}")
        await conn.execute("CHECKPOINT")
    finally:
        await conn.close()


async def settle(conn: asyncpg.Connection) -> int:
    """Wait until the projector has folded every appended event; returns the queries it took
    (each a transaction of its own, for the caller to leave out)."""
    for polls in range(1, 201):
        if not await conn.fetchval(_BEHIND):
            return polls
        await asyncio.sleep(0.05)
    return 200


# -- the database's round trips --------------------------------------------------------------------

# asyncpg's calls that each make one round trip (a transaction's BEGIN and COMMIT go through
# ``execute``; ``executemany`` pipelines its rows in one).
_ROUND_TRIPS = ("fetch", "fetchrow", "fetchval", "execute", "executemany", "fetchmany")
# Each logged call adds three to the profile's count: the wrapper, the context's read, the append.
LOGGING_CALLS = 3
# An append handed to the batcher (service/store/batching.py), logged as a query of this text: the
# round trip its caller waits for, whichever batch carries it and whichever task sends that.
APPEND = "(an append, through the batcher)"

Query = tuple[str | None, str, tuple[Any, ...]]  # inprocess.REQUEST when made, its text, its arguments


# Each bot driver's dealer (``_play``): the servers' seeds of the games it creates, in its order.
_DEALER: ContextVar[random.Random] = ContextVar("dealer")


@contextmanager
def dealt_by_drivers() -> Iterator[None]:
    """The servers' seeds drawn meanwhile from the dealer of the driver whose request creates the
    game. With its games' ids named by its keys (bench/lib/inprocess.py's ``play``), each driver
    is dealt the same games in each run, so a run plays as many games as the last: each game's
    lobby requests are a share of every command's cost (16 against 19 games in 600 commands, about
    30 calls a command apart). The seeds are still stored and committed as a server's are."""
    from domain.randomness import SEED_BYTES
    from service.store.seeds import SeedStore

    original = SeedStore.draw
    SeedStore.draw = staticmethod(lambda: _DEALER.get().randbytes(SEED_BYTES))  # type: ignore[method-assign]
    try:
        yield
    finally:
        SeedStore.draw = original  # type: ignore[method-assign]


@contextmanager
def logged_queries() -> Iterator[list[Query]]:
    """Every round trip an asyncpg connection of this process makes meanwhile, and every append
    handed to the batcher, with the request it served (``inprocess.REQUEST``)."""
    from service.store.batching import AppendBatcher

    log: list[Query] = []
    patched: list[tuple[type, str, Any]] = [(asyncpg.Connection, name, None) for name in _ROUND_TRIPS]
    patched.append((AppendBatcher, "append", APPEND))

    def logging(original: Any, text: str | None) -> Any:
        # No more than the three calls LOGGING_CALLS allows for (a tuple is no call).
        if text is None:

            def query(self: Any, query: str, *args: Any, **options: Any) -> Any:
                log.append((REQUEST.get(), query, args))
                return original(self, query, *args, **options)

            return query

        def append(self: Any, append: Any) -> Any:
            log.append((REQUEST.get(), text, ()))
            return original(self, append)

        return append

    originals = [(owner, name, getattr(owner, name)) for owner, name, _ in patched]
    for (owner, name, original), (_, _, text) in zip(originals, patched, strict=True):
        setattr(owner, name, logging(original, text))
    try:
        yield log
    finally:
        for owner, name, original in originals:
            setattr(owner, name, original)


def argument_bytes(value: Any) -> int:
    """What a query argument weighs as the binary protocol sends it (integers counted as 8
    bytes, an array with its 20-byte header and a 4-byte length per element)."""
    if value is None:
        return 0
    if isinstance(value, str):
        return len(value.encode())
    if isinstance(value, bytes | bytearray | memoryview):
        return len(value)
    if isinstance(value, bool):
        return 1
    if isinstance(value, uuid.UUID):
        return 16
    if isinstance(value, int | float | datetime.datetime):
        return 8
    if isinstance(value, list | tuple):
        return 20 + sum(4 + argument_bytes(v) for v in value)
    return len(str(value).encode())


# -- the budget's figures over a fixed mix ---------------------------------------------------------

# Each figure per command: what the mix's requests (the games' lobby calls and the seats' views
# included) and the app's own tasks made, divided by the commands sent.
FIGURES = {
    "python_calls": "Python function calls (cProfile), the driver's few percent included",
    "command_round_trips": "round trips a command waits for (its append counted as one)",
    "round_trips": "round trips in all (commands, views, lobby, the projector, the batches)",
    "transactions": "committed transactions (pg_stat_database.xact_commit)",
    "wal_bytes": "WAL bytes of this database's relations (pg_walinspect), full-page images in",
    "argument_bytes": "bytes of the queries' arguments sent to PostgreSQL",
}


@dataclass
class Costs:
    commands: int = 0
    errors: int = 0
    games: int = 0
    figures: dict[str, float] = field(default_factory=dict)
    queries: Counter[str] = field(default_factory=Counter)  # round trips by query, all requests
    command_queries: Counter[str] = field(default_factory=Counter)  # those serving a command

    def to_json(self) -> str:
        return json.dumps({f.name: getattr(self, f.name) for f in dataclasses.fields(self)})

    @classmethod
    def from_json(cls, text: str) -> Costs:
        fields = json.loads(text)
        queries, command_queries = Counter(fields.pop("queries")), Counter(fields.pop("command_queries"))
        return cls(**fields, queries=queries, command_queries=command_queries)


async def measure(url: str, data_dir: Path, *, drivers: int = 10, commands: int = 60, seed: int = 0) -> Costs:
    """``drivers`` bot drivers at once, each sending ``commands`` commands (bench/commands.py's
    driver: an ``Idempotency-Key`` on each, ``?view=true``, a new game when one ends); what they
    cost, per command. A first app plays a warm-up of its own games (what the process imports
    and caches once), waits for its projector and stops; then, from a ``CHECKPOINT``, a second
    app is started and plays the measured games until the projector has folded the last one,
    and stops, so that each of its
    backends has flushed its statistics (an idle one may hold them for 10 s). The calls are
    counted while the games are played, the round trips until the projector is done, the
    transactions and WAL in all (the second app's start and stop included)."""
    async with running_app(url, "costs", data_dir) as client:
        await _play(client, drivers, 10, seed + 1000, new_counts())
        # The warm-up's games folded by its own projector: left behind, the measured app's first
        # round would read them whole (and set their pages' hint bits, a full-page image each).
        conn = await asyncpg.connect(url)
        try:
            await settle(conn)
        finally:
            await conn.close()
    await checkpoint(url)
    await asyncio.sleep(1.0)  # the backends that stopped flush their statistics as they exit
    before = await snapshot_at(url)
    counts = new_counts()
    # Costs per second, not per command, are left out: the slower the machine, the more of them a
    # command would carry. The scheduler's polls (20 a second; no bot lets a deadline pass), the
    # NOTIFYs to other instances (one per 50 ms at most, a hint: their streams also poll) and the
    # transparency log's sequencer (a batch of leaves every 2 s), the webhooks' delivery loop.
    quiet = {
        "scheduler_interval": 3600.0,
        "computer_players_interval": 3600.0,
        "notify_appends": False,
        "log_interval": 3600.0,
        "webhook_interval": 3600.0,
    }
    async with running_app(url, "costs", data_dir, **quiet) as client:
        with logged_queries() as log:
            profile = cProfile.Profile()
            profile.enable()
            await _play(client, drivers, commands, seed, counts)
            profile.disable()
            logged = len(log)
            settling = REQUEST.set("settle")
            conn = await asyncpg.connect(url)
            try:
                polls = await settle(conn)
            finally:
                await conn.close()
                REQUEST.reset(settling)
    await asyncio.sleep(1.0)
    conn = await asyncpg.connect(url)
    try:
        after = await snapshot(conn)
        wal = await database_wal(conn, before, after)
    finally:
        await conn.close()
    # The batches' calls are the app's round trips; a command waits for its append's.
    app = [q for q in log if q[0] != "settle" and q[1] != APPEND]
    serving = [q for q in log if q[0] == "command" and not q[1].startswith(_BATCH)]
    n = max(1, counts["commands"])
    costs = Costs(counts["commands"], counts["errors"], counts["games"])
    costs.figures = {
        "python_calls": (calls(profile) - LOGGING_CALLS * logged) / n,
        "command_round_trips": len(serving) / n,
        "round_trips": len(app) / n,
        "transactions": (after.totals["commits"] - before.totals["commits"] - polls) / n,
        "wal_bytes": wal / n,
        "argument_bytes": sum(argument_bytes(a) for q in app for a in q[2]) / n,
    }
    costs.queries = Counter(" ".join(q[1].split())[:100] for q in app)
    costs.command_queries = Counter(" ".join(q[1].split())[:100] for q in serving)
    return costs


async def snapshot_at(url: str) -> Snapshot:
    """``snapshot`` on a connection of its own."""
    conn = await asyncpg.connect(url)
    try:
        return await snapshot(conn)
    finally:
        await conn.close()


async def _play(client: Asgi, drivers: int, commands: int, seed: int, counts: dict[str, int]) -> None:
    async def driver(n: int) -> None:
        _DEALER.set(random.Random(f"dealer {seed} {n}"))  # in this driver's task alone
        await play(client, random.Random(seed + n), counts, lambda sent: sent < commands)

    with dealt_by_drivers():
        await asyncio.gather(*(driver(n) for n in range(drivers)))


# -- the budget ---------------------------------------------------------------------------------------


def budget(path: Path = BUDGET) -> dict[str, float]:
    """Each figure's limit per command (bench/budget.toml)."""
    with path.open("rb") as file:
        limits: dict[str, float] = tomllib.load(file)["limits"]
    return limits


def over_budget(costs: Costs, limits: dict[str, float]) -> list[str]:
    """The figures above their limits (a figure with no limit is over it)."""
    return [name for name, value in costs.figures.items() if name not in limits or value > limits[name]]


def print_budget(costs: Costs, limits: dict[str, float]) -> None:
    over = over_budget(costs, limits)
    common.print_table(
        f"What a command costs against bench/budget.toml ({costs.commands} commands, "
        f"{costs.errors} errors, {costs.games} games)",
        ["figure per command", "measured", "limit", ""],
        [
            [
                FIGURES.get(name, name),
                f"{value:,.2f}",
                f"{limits.get(name, 0):,.2f}",
                "OVER" if name in over else "ok",
            ]
            for name, value in costs.figures.items()
        ],
    )
    common.print_table(
        "Round trips serving a command, by query (per command)",
        ["query", "per command"],
        [
            [text, f"{count / max(1, costs.commands):.3f}"]
            for text, count in costs.command_queries.most_common()
        ],
    )
    common.print_table(
        "Round trips in all, by query (per command)",
        ["query", "per command"],
        [[text, f"{count / max(1, costs.commands):.3f}"] for text, count in costs.queries.most_common()],
    )
