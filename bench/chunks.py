"""Spectators through a cache: simulated viewers of delayed public games read the published head
and chunks (docs/chunks.md) through Debian's nginx with docker/nginx-chunks.conf, in rows of
growing crowds, and the origin's load per game stays flat.

Run: ``.venv/bin/python bench/chunks.py [--viewers 100,1000,5000,20000] [--seconds 10] [--games 2]``

Each row gets a fresh database on the embedded PostgreSQL, one ``playlog serve`` process, nginx
(one worker) on loopback in front of it (tests/faults/nginx.py rewrites only its listen, server
and path lines), G public games with a spectator delay played by bots at a steady pace, and N
viewers: coroutines that each poll their game's head once a second (with its ETag: mostly 304s),
timed to just after the cache's copy expires (nginx: the next whole second), and fetch each
chunk before the head's tail that they lack, over a shared pool of keep-alive connections.
Printed per row: the requests the viewers got answered per second, the origin's requests per
second per game (nginx logs every request that reached the origin), lateness
beyond the delay (when a viewer first holds an event, minus ``recorded_at + delay``), the CPU
of nginx, the origin instance, PostgreSQL and the load generator, and what a probe polling every
chunk ahead of its release found early (it must find none). Then the request arithmetic to 10^6
viewers.

One process drives every viewer: when it cannot keep up, the viewers poll less often than once
a second (the achieved rate says so) and lateness includes the generator's own queueing.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import shutil
import sys
import tempfile
import time
import uuid
from collections import Counter
from contextlib import ExitStack
from functools import partial
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

import msgspec

from bench.lib import common
from projections.chunks import chunk_range
from service.tools.bot import RACES, pick
from service.tools.client import ApiError, PlaylogClient
from tests.faults.nginx import Nginx, nginx_binary

DELAY = 2.0
POLL = 1.0
CONNECTIONS = 256
RETRY_STALE = 0.1
JITTER = (0.05, 0.3)  # seconds after the head's copy in the cache expires: a viewer's next poll


class Tail(msgspec.Struct):
    start: int
    events: list[str]


class Head(msgspec.Struct):
    chunk_events: int
    released: int
    chunks: int
    tail: Tail


class Chunk(msgspec.Struct):
    start: int
    events: list[str]


class Event(msgspec.Struct):
    seq: int
    recorded_at: float


class Connection:
    """One keep-alive HTTP/1.1 connection: GETs one at a time, bodies by Content-Length."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer

    async def get(self, path: str, etag: str | None = None) -> tuple[int, str | None, bool, bytes]:
        extra = f"If-None-Match: {etag}\r\n" if etag else ""
        self.writer.write(f"GET {path} HTTP/1.1\r\nHost: cache\r\n{extra}\r\n".encode())
        head = await self.reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split(" ", 2)[1])
        length, tag, stale = 0, None, False
        for line in lines[1:]:
            name, _, value = line.partition(":")
            name = name.lower()
            if name == "content-length":
                length = int(value)
            elif name == "etag":
                tag = value.strip()
            elif name == "x-cache":
                stale = value.strip() in ("STALE", "UPDATING")
        body = await self.reader.readexactly(length) if length else b""
        return status, tag, stale, body


class Pool:
    def __init__(self, port: int) -> None:
        self.port = port
        self.idle: asyncio.Queue[Connection] = asyncio.Queue()
        self.answered = 0

    async def open(self, n: int) -> None:
        for _ in range(n):
            self.idle.put_nowait(Connection(*await asyncio.open_connection("127.0.0.1", self.port)))

    async def get(self, path: str, etag: str | None = None) -> tuple[int, str | None, bool, bytes]:
        conn = await self.idle.get()
        try:
            answer = await conn.get(path, etag)
        except (OSError, asyncio.IncompleteReadError):
            conn.writer.close()
            conn = Connection(*await asyncio.open_connection("127.0.0.1", self.port))
            answer = await conn.get(path, etag)
        self.idle.put_nowait(conn)
        self.answered += 1
        return answer


class Measure:
    def __init__(self) -> None:
        self.lateness: list[float] = []
        self.counting = False


async def viewer(pool: Pool, game: uuid.UUID, measure: Measure, stop: asyncio.Event) -> None:
    await asyncio.sleep(random.random() * POLL)
    etag: str | None = None
    known = 0  # the spectators' events this viewer holds
    started = time.time()
    retried = False
    decode_head, decode_chunk = msgspec.json.Decoder(Head), msgspec.json.Decoder(Chunk)
    decode_event = msgspec.json.Decoder(Event)
    while not stop.is_set():
        status, tag, stale, body = await pool.get(f"/games/{game}/spectate/head", etag)
        now = time.time()
        if status == 200:
            etag = tag
            head = decode_head.decode(body)
            fresh: list[str] = []
            size = head.chunk_events
            for k in range(known // size, (head.tail.start - 1) // size):  # before the tail
                start, end = chunk_range(k)
                code, _, _, raw = await pool.get(f"/games/{game}/spectate/chunks/{start}-{end}")
                if code != 200:  # a 404 read before its release, cached a second: next poll
                    etag = None
                    break
                chunk = decode_chunk.decode(raw)
                fresh += chunk.events[max(0, known - chunk.start + 1) :]
            else:
                fresh += head.tail.events[max(0, known - head.tail.start + 1) :]
            now = time.time()
            for text in fresh:
                event = decode_event.decode(text)
                if event.seq <= known:
                    continue
                known = event.seq
                released = event.recorded_at + DELAY
                if measure.counting and released > started:  # not the catch-up of a new viewer
                    measure.lateness.append(now - released)
        # The next poll just after the cache's copy expires: nginx keeps it until the next whole
        # second (its clock's grain), and the first request after that refreshes it. A copy
        # served while a refresh runs (``X-Cache: STALE``/``UPDATING``) is a second old: again soon.
        if stale and not retried:
            retried = True
            await asyncio.sleep(RETRY_STALE)
            continue
        retried = False
        await asyncio.sleep(math.floor(time.time()) + POLL + random.uniform(*JITTER) - time.time())


async def probe(pool: Pool, games: list[uuid.UUID], stop: asyncio.Event, found: list[int]) -> None:
    """Poll the chunks ahead of their release: count any 200 whose events are not all released."""
    decode_chunk, decode_event = msgspec.json.Decoder(Chunk), msgspec.json.Decoder(Event)
    while not stop.is_set():
        for game in games:
            for k in range(8):
                start, end = chunk_range(k)
                status, _, _, body = await pool.get(f"/games/{game}/spectate/chunks/{start}-{end}?probe")
                received = time.time()
                if status == 200:
                    events = [decode_event.decode(t) for t in decode_chunk.decode(body).events]
                    found[1] += 1
                    if max(e.recorded_at for e in events) + DELAY > received:
                        found[0] += 1
        await asyncio.sleep(0.1)


async def play(api: PlaylogClient, stop: asyncio.Event, ready: asyncio.Queue[uuid.UUID], seed: int) -> None:
    """One bot game after another (public, delayed), a command every half second."""
    rng = random.Random(seed)
    created = await api.create_game(
        "exploding_kittens", {"players": 5, "reaction_window": 0}, public=True, spectator_delay=DELAY
    )
    seats = [await api.join(created.game_id, f"bot-{n}") for n in range(5)]
    await api.start(created.game_id, created.host_token)
    ready.put_nowait(created.game_id)
    while not stop.is_set():
        views = [await api.view(created.game_id, s.seat, s.token) for s in seats]
        if views[0].status == "finished":
            return
        choices = [(v, c) for v in views if (c := pick(rng, v.legal_commands)) is not None]
        if choices:
            view, command = rng.choice(choices)
            try:
                await api.send(created.game_id, view.seat, seats[view.seat].token, command)
            except ApiError as exc:
                if exc.code not in RACES:
                    raise
        await asyncio.sleep(0.5)


async def row(
    service: common.Service, nginx: Nginx, viewers: int, args: argparse.Namespace, cpu: Any
) -> dict[str, Any]:
    stop = asyncio.Event()
    ready: asyncio.Queue[uuid.UUID] = asyncio.Queue()
    async with PlaylogClient(service.base_url) as api:
        players = [asyncio.create_task(play(api, stop, ready, args.seed + n)) for n in range(args.games)]
        games = [await ready.get() for _ in range(args.games)]
        pool = Pool(int(nginx.url.rsplit(":", 1)[1]))
        await pool.open(CONNECTIONS)
        measure = Measure()
        found = [0, 0]
        crowd = [
            asyncio.create_task(viewer(pool, games[n % len(games)], measure, stop)) for n in range(viewers)
        ]
        probes = asyncio.create_task(probe(pool, games, stop, found))
        await asyncio.sleep(args.warmup)  # every viewer has read its head once
        measure.counting = True
        before, answered, t0 = cpu(), pool.answered, time.time()
        await asyncio.sleep(args.seconds)
        after, answered, elapsed = cpu(), pool.answered - answered, time.time() - t0
        measure.counting = False
        stop.set()
        await asyncio.gather(*crowd, probes, *players, return_exceptions=True)
    # The probe's own requests (``?probe``: the cache key is the path, so they share the copies)
    # are counted apart: they poll every chunk ahead of its release, which no viewer does.
    window = [path for at, _, _, path in nginx.origin_requests() if t0 <= at <= t0 + elapsed]
    origin = Counter(
        next((g for g in games if str(g) in path), None) for path in window if "?probe" not in path
    )
    probed = sum(1 for path in window if "?probe" in path) / elapsed / len(games)
    per_game = [origin[g] / elapsed for g in games]
    late = measure.lateness
    return {
        "viewers": viewers,
        "answered/s": answered / elapsed,
        "origin/s/game": sum(per_game) / len(per_game),
        "origin/s/game max": max(per_game),
        "p50 late": common.percentile(late, 50),
        "p99 late": common.percentile(late, 99),
        "samples": len(late),
        "cpu": {party: (after[party] - before[party]) / elapsed for party in after},
        "probe origin/s/game": probed,
        "early": found[0],
        "probed": found[1],
    }


def cpu_seconds(nginx: Nginx, service: common.Service, url: str) -> dict[str, float]:
    return {
        "nginx": common.tree_cpu_seconds(nginx.proc.pid),
        "origin": common.tree_cpu_seconds(service.pid),
        "postgres": common.postgres_cpu_seconds(url),
        "load generator": common.own_cpu_seconds(),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--viewers", default="100,1000,5000,20000", help="viewer counts, one row each")
    parser.add_argument("--games", type=int, default=2, help="G games watched (default 2)")
    parser.add_argument("--seconds", type=float, default=10.0, help="measured seconds per row")
    parser.add_argument("--warmup", type=float, default=3.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if nginx_binary() is None:
        sys.exit("nginx is not installed: apt-get install nginx-light")
    common.install_uvloop()
    admin = common.start_postgres()
    rows = []
    for viewers in (int(x) for x in args.viewers.split(",")):
        url, name = common.fresh_database(admin, f"chunks{viewers}")
        scratch = Path(tempfile.mkdtemp(prefix="playlog-bench-chunks-"))
        try:
            with ExitStack() as stack:
                service = stack.enter_context(common.Service(url, data_dir=scratch / "instance", workers=1))
                nginx = Nginx(scratch, common.free_port(), [f"127.0.0.1:{service.port}"], workers=1)
                stack.callback(nginx.close)
                nginx.wait_up()

                cpu = partial(cpu_seconds, nginx, service, url)
                rows.append(asyncio.run(row(service, nginx, viewers, args, cpu)))
        finally:
            common.drop_database(admin, name)
            shutil.rmtree(scratch, ignore_errors=True)
    print(f"playlog bench/chunks.py  ({common.machine()})")
    print(
        f"G={args.games} games (5 bots, a command every 0.5 s), spectator delay {DELAY:g} s,"
        f" head polled every {POLL:g} s, {args.seconds:g} s measured per row"
    )
    common.print_table(
        "Viewers through nginx: the origin's load per game, lateness beyond the delay",
        [
            "viewers",
            "answered/s",
            "per viewer/s",
            "origin req/s/game",
            "max game",
            "probe's",
            "late p50 s",
            "late p99 s",
            "samples",
        ],
        [
            [
                r["viewers"],
                r["answered/s"],
                r["answered/s"] / r["viewers"],
                r["origin/s/game"],
                r["origin/s/game max"],
                r["probe origin/s/game"],
                r["p50 late"],
                r["p99 late"],
                r["samples"],
            ]
            for r in rows
        ],
    )
    parties = ["nginx", "origin", "postgres", "load generator"]
    common.print_table(
        "CPU (cores busy over the measured window)",
        ["viewers", *parties],
        [[r["viewers"], *(f"{r['cpu'][p]:.2f}" for p in parties)] for r in rows],
    )
    print(
        f"\nProbe ahead of release: {sum(r['early'] for r in rows)} early chunks found"
        f" in {sum(r['probed'] for r in rows)} chunks read"
    )
    base = rows[0]["origin/s/game"]
    spread = max(abs(r["origin/s/game"] / base - 1) for r in rows) if base else float("nan")
    print(f"Origin requests per game vs the first row: within {spread:.0%}")
    origin = max(r["origin/s/game"] for r in rows)
    print(
        "\nTo 10^6 viewers of one game: 10^6 head polls/s at the edge (a CDN; 304 when unchanged),"
        f" each edge node (or one shield in front of them) asks the origin for the game's head at"
        f" most once a second and for each chunk once: measured here {origin:.2f} requests/s per"
        f" game per cache, so with 50 edge nodes behind one shield the origin still sees ~{origin:.1f}/s"
        f" per game, and without a shield 50 x {origin:.1f} = {50 * origin:.0f}/s per game."
    )


if __name__ == "__main__":
    main()
