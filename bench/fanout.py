"""Spectator fan-out: many concurrent SSE spectators over many games on one instance.

Starts the service (one process; embedded PostgreSQL unless --url), creates GAMES public
2-player Exploding Kittens games with a short spectator delay, opens SPECTATORS delayed streams
spread over them and plays moves for --seconds. The streams are read by ``--readers`` separate
processes (raw sockets, only each event's ``recorded_at`` decoded), so that the load generator
neither runs on the service's event loop nor hides its cost: the CPU of the service, of the
readers and of the game drivers is printed next to the figures. The open-files limit is raised
to the hard limit (a stream is a socket on each side) and the service's stream and connection
caps are raised through its settings for this run only.
Prints events delivered per second, the lateness of each delivery beyond the configured delay
(p50/p99; target p99 under 250 ms), and the service's resident memory per open stream (target
under 32 KB), next to the service's memory before the streams opened.

    .venv/bin/python bench/fanout.py [--games 100] [--spectators 10000] [--seconds 30] [--readers 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root: bench.lib

from bench.lib.common import (
    Connection,
    Service,
    drop_database,
    fresh_database,
    install_uvloop,
    machine,
    own_cpu_seconds,
    percentile,
    print_table,
    profile,
    start_postgres,
    summarize_profile,
    tree_cpu_seconds,
)

TARGET_KB = 32


class Stamp(msgspec.Struct):
    recorded_at: float  # the only field the reader decodes from an event


_stamp = msgspec.json.Decoder(Stamp)


class Spectator:
    """One SSE stream over a raw socket; records when each event arrived and how late it was."""

    def __init__(self, port: int, game_id: str, delay: float, lateness: list[tuple[float, float]]) -> None:
        self.port, self.game_id, self.delay, self.lateness = port, game_id, delay, lateness
        self.received = 0
        self.open = asyncio.Event()

    async def run(self) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.write(
            f"GET /games/{self.game_id}/spectate/stream HTTP/1.1\r\nHost: bench\r\n"
            "Accept: text/event-stream\r\n\r\n".encode()
        )
        await writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            raise RuntimeError(f"stream refused: {status!r}")
        while (await reader.readline()) not in (b"\r\n", b""):
            pass  # the rest of the headers
        self.open.set()
        buffer = b""
        try:
            while True:
                size_line = await reader.readline()  # chunked transfer encoding
                if not size_line:
                    return
                size = int(size_line.strip() or b"0", 16)
                if size == 0:
                    return
                buffer += await reader.readexactly(size + 2)
                buffer = buffer[:-2]
                *messages, buffer = buffer.split(b"\r\n\r\n")
                now = time.time()
                for message in messages:
                    at = message.find(b"data: ")
                    if at >= 0:
                        stamp = _stamp.decode(message[at + 6 :].split(b"\r\n", 1)[0])
                        self.lateness.append((now, now - (stamp.recorded_at + self.delay)))
                        self.received += 1
        finally:
            writer.close()


async def read_streams(port: int, game_ids: list[str], delay: float) -> None:
    """A reader process: opens a stream per game id, says ``open`` on stdout, then reads until a
    line arrives on stdin, and writes ``[received, [[arrived, lateness], ...]]`` to stdout."""
    lateness: list[tuple[float, float]] = []
    streams = [Spectator(port, game_id, delay, lateness) for game_id in game_ids]
    tasks: list[asyncio.Task[None]] = []
    for start in range(0, len(streams), 100):  # in waves, each opened before the next
        wave = streams[start : start + 100]
        tasks += [asyncio.create_task(stream.run()) for stream in wave]
        opened = asyncio.ensure_future(asyncio.gather(*(s.open.wait() for s in wave)))
        await asyncio.wait([opened, *tasks], timeout=120, return_when=asyncio.FIRST_COMPLETED)
        failed = [t for t in tasks if t.done()]
        if failed:
            raise RuntimeError(f"a stream ended early: {failed[0].exception()!r}")
        if not opened.done():
            raise RuntimeError("streams did not open within 120 s")
    print("open", flush=True)
    await asyncio.to_thread(sys.stdin.readline)
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    sys.stdout.buffer.write(msgspec.json.encode([sum(s.received for s in streams), lateness]) + b"\n")
    sys.stdout.flush()


def raise_fd_limit() -> int:
    """Soft limit on open files up to the hard one (a stream is a socket on each side); the
    service, started after this, inherits it."""
    _soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return hard


async def play(conn: Connection, game: dict, stop: asyncio.Event, interval: float, rng: random.Random) -> int:
    """Random legal moves, one every ``interval`` seconds on a schedule of the game's own (a random
    phase), until ``stop``. The schedule does not move with the answers: a driver that slept
    ``interval`` after each answer would fall in step with every other one after any stall of
    the service, and the games would go on moving together, a burst every ``interval``."""
    commands = 0
    due = time.monotonic() + rng.random() * interval
    while not stop.is_set():
        await asyncio.sleep(max(0.0, due - time.monotonic()))
        due += interval
        views = [
            await conn.call("GET", f"/games/{game['id']}/seats/{s['seat']}/view", token=s["token"])
            for s in game["seats"]
        ]
        if views[0]["status"] == "finished":
            return commands
        options = [
            (v["seat"], c)
            for v in views
            for c in (v["view"] or {}).get("legal_commands", [])
            if c["type"] != "Concede"
        ]
        if options:
            seat, command = rng.choice(options)
            try:
                await conn.call(
                    "POST",
                    f"/games/{game['id']}/seats/{seat}/commands",
                    command,
                    token=game["seats"][seat]["token"],
                )
                commands += 1
            except Exception:
                pass
    return commands


async def new_game(conn: Connection, delay: float) -> dict:
    created = await conn.call(
        "POST",
        "/games",
        {
            "kind": "exploding_kittens",
            "options": {"players": 2, "reaction_window": 0},
            "spectator_delay": delay,
        },
    )
    seats = [
        await conn.call("POST", f"/games/{created['game_id']}/seats", {"name": f"p{n}"}) for n in range(2)
    ]
    await conn.call("POST", f"/games/{created['game_id']}/start", token=created["host_token"])
    return {"id": created["game_id"], "seats": seats}


def start_readers(port: int, game_ids: list[str], spectators: int, delay: float, readers: int) -> list[Any]:
    """``readers`` processes sharing the streams (stream i watches game i mod games)."""
    share = [[game_ids[i % len(game_ids)] for i in range(r, spectators, readers)] for r in range(readers)]
    procs = []
    for ids in share:
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            json.dump(ids, f)
        cmd = [sys.executable, __file__, "--reader", f.name, "--port", str(port), "--delay", str(delay)]
        procs.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE))
    return procs


async def bench(
    service: Service,
    games: int,
    spectators: int,
    seconds: float,
    delay: float,
    readers: int,
    profile_path: str | None = None,
) -> None:
    setup = Connection(service.port)
    rows = [await new_game(setup, delay) for _ in range(games)]
    await setup.close()
    await asyncio.sleep(1.0)
    rss_before = service.rss_kb()

    procs = start_readers(service.port, [r["id"] for r in rows], spectators, delay, readers)
    for proc in procs:
        line = await asyncio.to_thread(proc.stdout.readline)
        if line.strip() != b"open":
            raise RuntimeError(f"a reader failed: {line!r}")
    await asyncio.sleep(delay + 1.0)  # the backlog (lobby events) has been delivered
    rss_open = service.rss_kb()

    players = [Connection(service.port) for _ in range(games)]  # one per driver: not shareable
    rng = random.Random(1)
    interval = 2.0
    stop = asyncio.Event()
    measured_from = time.time()
    cpu_before = {
        "service": tree_cpu_seconds(service.pid),
        "readers": sum(tree_cpu_seconds(p.pid) for p in procs),
        "drivers": own_cpu_seconds(),
    }
    started = time.perf_counter()
    spy = profile(service.pid, profile_path, 0, seconds) if profile_path else None
    drivers = [
        asyncio.create_task(
            play(players[i % len(players)], game, stop, interval, random.Random(rng.random()))
        )
        for i, game in enumerate(rows)
    ]
    await asyncio.sleep(seconds)
    stop_drivers = time.perf_counter()
    stop.set()
    commands = sum(await asyncio.gather(*drivers))
    await asyncio.sleep(delay + 0.5)  # let the delayed tail arrive
    elapsed = time.perf_counter() - started
    cpu = {
        "service": tree_cpu_seconds(service.pid) - cpu_before["service"],
        "readers": sum(tree_cpu_seconds(p.pid) for p in procs) - cpu_before["readers"],
        "drivers": own_cpu_seconds() - cpu_before["drivers"],
    }
    delivered = 0
    lateness: list[float] = []
    for proc in procs:
        out, _ = await asyncio.to_thread(proc.communicate, b"stop\n")
        received, samples = msgspec.json.decode(out)
        delivered += received
        lateness += [late for arrived, late in samples if arrived >= measured_from]
    for conn in players:
        await conn.close()
    if spy is not None and profile_path:
        spy.wait()
        print(f"py-spy of the service while played ({profile_path}), inclusive share:")
        for frame, share in summarize_profile(profile_path, top=40):
            print(f"  {share * 100:5.1f}%  {frame}")

    per_stream = (rss_open - rss_before) * 1024 / spectators
    p99 = percentile(lateness, 99) * 1000
    print_table(
        f"Spectator fan-out: {spectators} streams over {games} games, delay {delay:g} s, {machine()}",
        ["figure", "value", "target / baseline"],
        [
            ["commands played", commands, f"{commands / (stop_drivers - started):.1f}/s"],
            ["events delivered (measured window)", len(lateness), f"{delivered} in all"],
            ["events delivered per second", f"{len(lateness) / elapsed:.0f}", ""],
            ["lateness beyond delay p50 (ms)", f"{percentile(lateness, 50) * 1000:.1f}", ""],
            ["lateness beyond delay p99 (ms)", f"{p99:.1f}", f"< 250 {'MET' if p99 < 250 else 'MISSED'}"],
            ["lateness beyond delay max (ms)", f"{max(lateness, default=0) * 1000:.1f}", ""],
            ["service RSS before streams (MB)", f"{rss_before / 1024:.1f}", "baseline"],
            ["service RSS with streams open (MB)", f"{rss_open / 1024:.1f}", ""],
            ["RSS per open stream (KB)", f"{per_stream / 1024:.1f}", f"< {TARGET_KB:g}"],
            ["CPU s: service (1 process)", f"{cpu['service']:.1f}", f"{elapsed:.1f} s wall"],
            ["CPU s: stream readers", f"{cpu['readers']:.1f}", f"{len(procs)} processes"],
            ["CPU s: game drivers", f"{cpu['drivers']:.1f}", "this process"],
            [
                "service CPU ms per event delivered",
                f"{1000 * cpu['service'] / max(1, len(lateness)):.3f}",
                "",
            ],
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--spectators", type=int, default=10000)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--delay", type=float, default=2.0, help="spectator_delay of the games (s)")
    parser.add_argument("--readers", type=int, default=2, help="stream reader processes")
    parser.add_argument("--url", help="PostgreSQL admin URL (default: the embedded server)")
    parser.add_argument("--profile", help="py-spy the service while games are played (raw output path)")
    parser.add_argument("--reader", help=argparse.SUPPRESS)  # internal: a reader process's game ids
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    limit = raise_fd_limit()
    install_uvloop()
    if args.reader:
        game_ids = json.loads(Path(args.reader).read_text())
        Path(args.reader).unlink()
        asyncio.run(read_streams(args.port, game_ids, args.delay))
        return
    if limit < args.spectators + 1000:
        sys.exit(f"open files limit {limit} is below {args.spectators} streams: raise `ulimit -Hn`")

    admin = args.url or start_postgres()
    url, name = fresh_database(admin, "fanout")
    # The bench's own caps: production's defaults (1,000 streams, 2,000 connections) protect an
    # instance; here one instance is meant to carry them all.
    env = {"PLAYLOG_MAX_STREAMS": str(args.spectators + 100),
           "PLAYLOG_MAX_CONNECTIONS": str(args.spectators + 1000),
           "PLAYLOG_HEADER_TIMEOUT": "60"}  # fmt: skip
    try:
        with tempfile.TemporaryDirectory() as tmp, Service(url, data_dir=Path(tmp), env=env) as service:
            asyncio.run(
                bench(
                    service,
                    args.games,
                    args.spectators,
                    args.seconds,
                    args.delay,
                    args.readers,
                    args.profile,
                )
            )
    finally:
        drop_database(admin, name)


if __name__ == "__main__":
    main()
