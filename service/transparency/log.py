"""The transparency log's storage, its one sequencer, and its reads (tiles, proofs, checkpoints).

The sequencer runs on exactly one instance per database at a time: like the projector it holds a
session advisory lock on its own connection, and another instance takes over when that
connection goes away. Every ``interval`` it looks for games whose head (``streams.seq``,
``streams.last_hash``) is not yet a leaf, appends one leaf per such game (ordered by leaf hash,
so a leaf's place says nothing of which game it is), stores the perfect subtrees the leaves
complete, and signs a checkpoint of the new size; all in one transaction. A quiet log appends
and signs nothing.

A leaf's data is ``"playlog/head/v2" || tag (32 bytes) || seq (8 bytes big-endian) || head``,
where the tag is drawn at random for the game's first leaf and reused by its later ones: the
data is served as the log's entries (C2SP tlog-tiles' entry bundles), and names no game to
whoever lacks the game's head or tag. Leaves written before migration 0019 have no tag: their
data (version 1) names the game and is given only with the game's proof.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import struct
import uuid
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import asyncpg

from projections import merkle
from projections.notes import Checkpoint, Verifier, sign
from service.app.errors import ServiceError
from service.runtime.log import get_logger
from service.store import deployment
from service.store.tasks import Backoff, log_failure, stop
from service.transparency.identity import Identity

if TYPE_CHECKING:
    from service.transparency.push import Pusher

log = get_logger("playlog.transparency")

SEQUENCER_LOCK = 0x706C_6179_0003  # next to the projector's advisory locks
TILE_HEIGHT = 8
TILE_WIDTH = 1 << TILE_HEIGHT
# Full tiles never change: the newest this many (8 KB each) are kept in memory, read once.
FULL_TILES_KEPT = 1024


@dataclass(frozen=True)
class Inclusion:
    index: int
    seq: int
    head: bytes
    tag: bytes | None  # None: a version-1 leaf
    proof: list[bytes]


async def _nodes(conn: Any, wanted: set[merkle.Node]) -> dict[merkle.Node, bytes]:
    if not wanted:
        return {}
    levels, indexes = zip(*sorted(wanted), strict=True)
    rows = await conn.fetch(
        "SELECT n.level, n.idx, n.hash FROM log_nodes n"
        " JOIN unnest($1::smallint[], $2::bigint[]) AS w(level, idx) USING (level, idx)",
        list(levels),
        list(indexes),
    )
    found = {(r["level"], r["idx"]): bytes(r["hash"]) for r in rows}
    if len(found) != len(wanted):
        raise RuntimeError("the log is missing subtrees below its checkpoint")
    return found


async def consistency_proof(conn: Any, old: int, new: int) -> list[bytes]:
    """The RFC 9162 consistency proof from size ``old`` to ``new`` (both at most the log's size)."""
    ranges = merkle.consistency_ranges(old, new)
    nodes = await _nodes(conn, merkle.needed(ranges))
    return [merkle.range_hash(lo, hi, nodes) for lo, hi in ranges]


async def append_round(conn: Any, identity: Identity) -> int | None:
    """One sequencer round in its own transaction: the new checkpoint's size, or None if no head
    changed. The caller holds the sequencer lock."""
    async with conn.transaction():
        size = int(await conn.fetchval("SELECT coalesce(max(idx) + 1, 0) FROM log_leaves"))
        heads = await conn.fetch(
            "SELECT s.game_id, s.seq, s.last_hash, ("
            "  SELECT t.tag FROM log_leaves t WHERE t.game_id = s.game_id AND t.tag IS NOT NULL LIMIT 1"
            " ) AS tag FROM streams s WHERE s.seq > 0 AND NOT EXISTS ("
            " SELECT 1 FROM log_leaves l"
            " WHERE l.game_id = s.game_id AND l.seq = s.seq AND l.head = s.last_hash)"
        )
        if not heads:
            return None
        tags = {h["game_id"]: bytes(h["tag"]) if h["tag"] else os.urandom(merkle.TAG_SIZE) for h in heads}
        leaves = sorted(
            (merkle.leaf_hash(merkle.leaf_data_v2(tags[h["game_id"]], h["seq"], bytes(h["last_hash"]))), h)
            for h in heads
        )
        frontier = await _nodes(conn, set(merkle.pieces(0, size)))
        made = merkle.appended(frontier, size, [leaf for leaf, _ in leaves])
        await conn.execute(
            "INSERT INTO log_leaves (idx, game_id, seq, head, tag)"
            " SELECT * FROM unnest($1::bigint[], $2::uuid[], $3::integer[], $4::bytea[], $5::bytea[])",
            list(range(size, size + len(leaves))),
            [h["game_id"] for _, h in leaves],
            [h["seq"] for _, h in leaves],
            [bytes(h["last_hash"]) for _, h in leaves],
            [tags[h["game_id"]] for _, h in leaves],
        )
        await conn.execute(
            "INSERT INTO log_nodes (level, idx, hash)"
            " SELECT * FROM unnest($1::smallint[], $2::bigint[], $3::bytea[])",
            [level for level, _ in made],
            [index for _, index in made],
            list(made.values()),
        )
        new_size = size + len(leaves)
        root = merkle.root(new_size, {**frontier, **made})
        note = sign(Checkpoint(identity.origin, new_size, root).body, identity.signer)
        await conn.execute(
            "INSERT INTO log_checkpoints (size, root, note) VALUES ($1, $2, $3)", new_size, root, note
        )
    return new_size


class Sequencer:
    """The one writer of the log per database (see the module docstring)."""

    def __init__(
        self,
        dsn: str,
        identity: Identity,
        interval: float,
        pusher: Pusher | None = None,
        retry_interval: float = 5.0,
    ) -> None:
        self.dsn = dsn
        self.identity = identity
        self.interval = interval
        self.pusher = pusher  # hands each new checkpoint to the witnesses (C2SP tlog-witness)
        self.retry_interval = retry_interval
        self.leading = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.create_task(self._run(), name="playlog-sequencer")

    async def stop(self) -> None:
        await stop(self._task)
        if self.pusher is not None:
            await self.pusher.close()

    async def _run(self) -> None:
        backoff = Backoff(cap=2.0)
        while True:
            try:
                await self._lead(backoff)
            except Exception as exc:  # the database went away, say: log it, retry, never die
                log_failure(log, "sequencer_failed", exc)
            self.leading = False
            await backoff.pause()

    async def _lead(self, backoff: Backoff) -> None:
        conn = await asyncpg.connect(
            self.dsn, timeout=5.0, server_settings={"application_name": "playlog-sequencer"}
        )
        try:
            backoff.reset()
            while not await conn.fetchval("SELECT pg_try_advisory_lock($1)", SEQUENCER_LOCK):
                await asyncio.sleep(self.retry_interval)  # another instance sequences
            self.leading = True
            log.info("sequencer_leading", origin=self.identity.origin)
            while True:
                size = await append_round(conn, self.identity)
                if size is not None:
                    log.info("log_checkpoint", size=size)
                if self.pusher is not None:
                    await self.pusher.push(conn)
                await asyncio.sleep(self.interval)
        finally:
            self.leading = False
            with contextlib.suppress(Exception):
                await asyncio.wait_for(conn.close(), 2.0)
            if not conn.is_closed():
                conn.terminate()


class TransparencyLog:
    """The log's reads and the cosignatures it collects, over the service's pool."""

    def __init__(self, pool: Any, identity: Identity, witnesses: Sequence[Verifier]) -> None:
        # witnesses: the keys whose cosignatures the sequencer's pusher keeps, published at /log/keys
        self.pool = pool
        self.identity = identity
        self.witnesses = {w.id: w for w in witnesses}
        self._full_tiles: OrderedDict[tuple[int, int], bytes] = OrderedDict()

    async def size(self) -> int:
        return int(await self.pool.fetchval("SELECT coalesce(max(size), 0) FROM log_checkpoints"))

    async def published_keys(self) -> list[Verifier]:
        """The log's verifier keys, newest first, as the deployment records them: a key rotated
        in since this instance started is published at once, by every instance, before any signs
        with it (docs/scaling.md); then any of this instance's own that the record lacks."""
        recorded = await deployment.value(self.pool, "PLAYLOG_LOG_SIGNING_KEY")
        keys = [Verifier.parse(text) for text in recorded.split(",")] if recorded else []
        return keys + [own for own in self.identity.verifiers if own not in keys]

    async def checkpoint(self, *, cosigned: bool = False) -> str | None:
        """The newest checkpoint (``cosigned``: the newest one a witness cosigned) with the
        cosignatures collected for it, or None if there is none."""
        newest = "log_cosignatures" if cosigned else "log_checkpoints"
        row = await self.pool.fetchrow(  # one query: the read path's most frequent request
            "SELECT c.note, coalesce(string_agg(s.line, '' ORDER BY s.witness), '') AS lines"
            " FROM log_checkpoints c LEFT JOIN log_cosignatures s ON s.size = c.size"
            f" WHERE c.size = (SELECT max(size) FROM {newest}) GROUP BY c.note"
        )
        return None if row is None else str(row["note"]) + str(row["lines"])

    async def cosigned(self, size: int) -> str:
        """The checkpoint of ``size`` as the log signed it, then the cosignatures it collected."""
        note = await self.pool.fetchval("SELECT note FROM log_checkpoints WHERE size = $1", size)
        if note is None:
            raise ServiceError(404, "no_such_checkpoint", f"The log signed no checkpoint of size {size}.")
        lines = await self.pool.fetch(
            "SELECT line FROM log_cosignatures WHERE size = $1 ORDER BY witness", size
        )
        return str(note) + "".join(r["line"] for r in lines)

    async def tile(self, level: int, index: int, width: int) -> bytes:
        """``width`` hashes of the tile at ``level``, ``index`` (C2SP tlog-tiles): the perfect
        subtrees of height ``8 * level`` from ``index * 256``."""
        if width == TILE_WIDTH and (kept := self._full_tiles.get((level, index))) is not None:
            self._full_tiles.move_to_end((level, index))
            return kept
        height = TILE_HEIGHT * level
        first = index * TILE_WIDTH
        if (first + width) << height > await self.size():
            raise ServiceError(404, "no_such_tile", "The log's checkpoints do not cover this tile yet.")
        rows = await self.pool.fetch(
            "SELECT hash FROM log_nodes WHERE level = $1 AND idx >= $2 AND idx < $3 ORDER BY idx",
            height,
            first,
            first + width,
        )
        body = b"".join(bytes(r["hash"]) for r in rows)
        if width == TILE_WIDTH:
            self._full_tiles[(level, index)] = body
            if len(self._full_tiles) > FULL_TILES_KEPT:
                self._full_tiles.popitem(last=False)
        return body

    async def consistency(self, old: int, new: int) -> list[bytes]:
        if not 1 <= old <= new or new > await self.size():
            raise ServiceError(
                422, "bad_tree_sizes", "Sizes must be 1 <= from <= to <= the newest checkpoint's size."
            )
        async with self.pool.acquire() as conn:
            return await consistency_proof(conn, old, new)

    async def entries(self, index: int, width: int) -> bytes:
        """An entry bundle (C2SP tlog-tiles): the data of leaves ``256 index`` to ``+ width``, each
        prefixed with its length (uint16, big-endian). Only version-2 leaves have public data: a
        bundle that holds a version-1 leaf (one logged before migration 0019) is not served."""
        first = index * TILE_WIDTH
        if first + width > await self.size():
            raise ServiceError(404, "no_such_tile", "The log's checkpoints do not cover this bundle yet.")
        rows = await self.pool.fetch(
            "SELECT seq, head, tag FROM log_leaves WHERE idx >= $1 AND idx < $2 ORDER BY idx",
            first,
            first + width,
        )
        if any(r["tag"] is None for r in rows):
            raise ServiceError(
                404, "no_such_tile", "This bundle holds leaves of version 1, whose data names a game."
            )
        out = bytearray()
        for r in rows:
            data = merkle.leaf_data_v2(bytes(r["tag"]), r["seq"], bytes(r["head"]))
            out += struct.pack(">H", len(data)) + data
        return bytes(out)

    async def inclusions(self, game_id: uuid.UUID, size: int) -> list[Inclusion]:
        """Every head of the game that is a leaf of the tree of ``size``, with its audit path."""
        rows = await self.pool.fetch(
            "SELECT idx, seq, head, tag FROM log_leaves WHERE game_id = $1 AND idx < $2 ORDER BY idx",
            game_id,
            size,
        )
        paths = [merkle.inclusion_ranges(r["idx"], size) for r in rows]
        async with self.pool.acquire() as conn:
            nodes = await _nodes(conn, merkle.needed(r for path in paths for r in path))
        return [
            Inclusion(
                r["idx"],
                r["seq"],
                bytes(r["head"]),
                None if r["tag"] is None else bytes(r["tag"]),
                [merkle.range_hash(lo, hi, nodes) for lo, hi in p],
            )
            for r, p in zip(rows, paths, strict=True)
        ]


def parse_tile_path(path: str) -> tuple[int, int, int] | None:
    """``<L>/<N>[.p/<W>]`` of a C2SP tlog-tiles path as (level, index, width), or None. ``N`` is
    written in groups of three digits, all but the last prefixed with ``x`` (``x001/x234/067``)."""
    parts = path.strip("/").split("/")
    width = TILE_WIDTH
    if len(parts) >= 3 and parts[-2].endswith(".p"):
        if not parts[-1].isdigit() or not 1 <= int(parts[-1]) < TILE_WIDTH or parts[-1].startswith("0"):
            return None
        width = int(parts[-1])
        parts = [*parts[:-2], parts[-2][:-2]]
    if len(parts) < 2 or not parts[0].isdigit() or len(parts[0]) > 2:
        return None
    groups = parts[1:]
    digits = [g[1:] for g in groups[:-1] if g.startswith("x")] + [groups[-1]]
    if len(digits) != len(groups) or not all(len(d) == 3 and d.isdigit() for d in digits):
        return None
    return int(parts[0]), int("".join(digits)), width


def tile_path(level: int, index: int, width: int = TILE_WIDTH) -> str:
    """The path of a tile below ``/log/tile/`` (the inverse of ``parse_tile_path``)."""
    digits = f"{index:03d}"
    digits = "0" * (-len(digits) % 3) + digits
    groups = [digits[i : i + 3] for i in range(0, len(digits), 3)]
    name = "/".join([*(f"x{g}" for g in groups[:-1]), groups[-1]])
    return f"{level}/{name}" + (f".p/{width}" if width < TILE_WIDTH else "")
