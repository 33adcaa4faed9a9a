"""Appends that arrive together share one call of ``playlog_append_batch``: one round trip, one
transaction, one commit (migration 0010 says what that saves PostgreSQL).

Smart batching: nothing waits on purpose. An append is sent at once while fewer than
``in_flight`` calls are out; under load, the appends that arrive while they are out go together
in the next call. A quiet service sends batches of one, as before; a busy one sends fewer,
bigger calls instead of queueing more of them.

A batch waits for no game another transaction holds (migration 0011): that append comes back
'busy' and is sent alone, waiting for its game as a single append does, while the batches go on.
So a session that holds a game's row stalls that game's appends only.

Each batch is sent by a task of its own, so a caller that is cancelled (its client went away)
gives up only its own answer, never the batch's other appends. When PostgreSQL refuses a whole
batch (an ERROR: the transaction is undone, nothing was appended), each append is sent again
alone, so one append's error is its own. A batch lost with its session (the connection gone, a
FATAL error) fails every append in it, as a lost single append fails its caller: whether it
committed is unknown, so it is not sent again here.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from typing import Any

import asyncpg
import msgspec

from projections.personal import Kept
from service.runtime.metrics import APPEND_BATCH_SIZE
from service.store.pool import Pool

# Calls out at once per process. One makes the biggest batches; two served no faster here
# (bench/commands.py, interleaved: ratio 0.210-0.245 with two, 0.218-0.267 with one).
IN_FLIGHT = 1
MAX_ITEMS = 64  # appends per call: bounds one transaction's locks and time

_APPEND_BATCH = "SELECT * FROM playlog_append_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"
# What a batch's appends carry beside their events is written in the same statement (so in the
# same transaction and round trip): the personal texts their events seal, and a new game's seed.
# An ERROR undoes them with the appends; an append refused item by item leaves its texts kept,
# for its caller to drop (service/store/events.py), and its seed, which no event committed to (a
# seed is only ever inserted when its game has none: the first create's stays).
_KEEP = (
    "kept AS (INSERT INTO personal_texts (game_id, seal, subject, field, salt, text)"
    " SELECT * FROM unnest(${}::uuid[], ${}::text[], ${}::text[], ${}::text[], ${}::bytea[], ${}::text[])"
    " ON CONFLICT DO NOTHING)"
)
_SEED = (
    "seeded AS (INSERT INTO game_seeds (game_id, seed) SELECT * FROM unnest(${}::uuid[], ${}::bytea[])"
    " ON CONFLICT (game_id) DO NOTHING)"
)
ITEM = 11  # the columns of playlog_append's rows, then the item (1-based) and its conflict
CONFLICT = 12


class Append(msgspec.Struct, frozen=True):
    """One append, as ``playlog_append`` takes it."""

    game_id: uuid.UUID
    expected_seq: int
    command_id: str | None
    fingerprint: str | None
    types: list[str]
    versions: list[int]
    bodies: list[str]
    metadata: str
    due_at: float | None
    kept: Sequence[Kept] = ()  # the personal texts its events seal, kept with it
    seed: bytes | None = None  # a new game's secret seed, which its first event commits to


_Waiting = tuple[Append, asyncio.Future[list[Any]]]


class AppendBatcher:
    """Sends appends in batches over ``pool``; ``append`` answers with the append's own rows."""

    def __init__(self, pool: Pool, *, in_flight: int = IN_FLIGHT, max_items: int = MAX_ITEMS) -> None:
        self._pool = pool
        self._in_flight = in_flight
        self._max_items = max_items
        self._waiting: list[_Waiting] = []
        self._sending: set[asyncio.Task[None]] = set()
        self._alone: set[asyncio.Task[None]] = set()  # appends whose game was busy, sent alone

    async def append(self, append: Append) -> list[Any]:
        """The rows ``playlog_append_batch`` returned for ``append`` (one, naming a conflict, or its
        events); raises what its call raised."""
        answer: asyncio.Future[list[Any]] = asyncio.get_running_loop().create_future()
        self._waiting.append((append, answer))
        if len(self._sending) < self._in_flight:
            self._send_next()
        return await answer

    def _send_next(self) -> None:
        batch, self._waiting = self._waiting[: self._max_items], self._waiting[self._max_items :]
        task = asyncio.create_task(self._send(batch))
        self._sending.add(task)
        task.add_done_callback(self._sent)

    def _sent(self, task: asyncio.Task[None]) -> None:
        self._sending.discard(task)
        if self._waiting and len(self._sending) < self._in_flight:
            self._send_next()

    async def _send(self, batch: list[_Waiting]) -> None:
        APPEND_BATCH_SIZE.observe(len(batch))
        try:
            rows = await self._call([append for append, _ in batch])
        except BaseException as exc:
            if len(batch) > 1 and _undone(exc):  # nothing of the batch was appended: each alone
                for waiting in batch:
                    await self._send([waiting])
                return
            _fail(batch, exc)
            return
        items: list[list[Any]] = [[] for _ in batch]
        for row in rows:
            items[row[ITEM] - 1].append(row)
        for waiting, own in zip(batch, items, strict=True):
            if own and own[0][CONFLICT] == "busy":  # another transaction holds its game
                task = asyncio.create_task(self._send_alone(waiting))
                self._alone.add(task)
                task.add_done_callback(self._alone.discard)
            else:
                _answer(waiting[1], own)

    async def _send_alone(self, waiting: _Waiting) -> None:
        """One append, waiting for its game as a single append does, outside the batches (which
        go on meanwhile)."""
        append, answer = waiting
        try:
            rows = await self._call([append], wait=True)
        except BaseException as exc:
            _fail([waiting], exc)
            return
        _answer(answer, rows)

    async def _call(self, batch: Sequence[Append], *, wait: bool = False) -> list[Any]:
        types: list[str] = []
        versions: list[int] = []
        bodies: list[str] = []
        kept: list[tuple[uuid.UUID, Kept]] = []
        seeds: list[tuple[uuid.UUID, bytes]] = []
        for append in batch:
            types += append.types
            versions += append.versions
            bodies += append.bodies
            kept += ((append.game_id, k) for k in append.kept)
            if append.seed is not None:
                seeds.append((append.game_id, append.seed))
        beside: list[str] = []  # the statement's CTEs, their arguments after the batch's 11
        more: list[list[Any]] = []
        if kept:
            beside.append(_KEEP.format(*range(12 + len(more), 18 + len(more))))
            more += [
                [game for game, _ in kept],
                *(
                    [getattr(k, name) for _, k in kept]
                    for name in ("seal", "subject", "field", "salt", "text")
                ),
            ]
        if seeds:
            beside.append(_SEED.format(12 + len(more), 13 + len(more)))
            more += [[game for game, _ in seeds], [seed for _, seed in seeds]]
        rows: list[Any] = await self._pool.fetch(
            f"WITH {', '.join(beside)} {_APPEND_BATCH}" if beside else _APPEND_BATCH,
            [a.game_id for a in batch],
            [a.expected_seq for a in batch],
            [a.command_id for a in batch],
            [a.fingerprint for a in batch],
            [len(a.types) for a in batch],
            types,
            versions,
            bodies,
            [a.metadata for a in batch],
            [a.due_at for a in batch],
            wait,
            *more,
        )
        return rows


def _undone(exc: BaseException) -> bool:
    """Whether the call's transaction surely appended nothing: an ERROR undid it and left the
    session alive. A FATAL one (the session ended, perhaps after the commit) or a lost
    connection leaves the outcome unknown."""
    return isinstance(exc, asyncpg.PostgresError) and (exc.severity_en or exc.severity) == "ERROR"


def _fail(batch: list[_Waiting], exc: BaseException) -> None:
    """Every append of ``batch`` raises ``exc``; a cancellation of the sending task goes on."""
    for _, answer in batch:
        if not answer.done():  # its caller was cancelled
            answer.set_exception(exc)
    if not isinstance(exc, Exception):
        raise exc


def _answer(answer: asyncio.Future[list[Any]], rows: list[Any]) -> None:
    if not answer.done():  # its caller was cancelled
        answer.set_result(rows)
