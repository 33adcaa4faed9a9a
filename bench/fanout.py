"""Spectator fan-out: many concurrent SSE spectators over many games on one instance.

Starts the service (embedded PostgreSQL unless --url), creates GAMES public 2-player Exploding
Kittens games with a short spectator delay, opens SPECTATORS delayed streams spread over them
(raw sockets: a stream costs the client almost nothing), and plays moves for --seconds.
Prints events delivered per second, the lateness of each delivery beyond the configured delay
(p50/p99; target p99 under 250 ms), and the service's resident memory per open stream (target
under 64 KB), next to the service's memory before the streams opened.

    .venv/bin/python bench/fanout.py [--games 100] [--spectators 1000] [--seconds 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    Connection,
    Service,
    drop_database,
    fresh_database,
    machine,
    percentile,
    print_table,
    start_postgres,
)


class Spectator:
    """One SSE stream over a raw socket; records the lateness of every event."""

    def __init__(self, port: int, game_id: str, delay: float, lateness: list[float]) -> None:
        self.port, self.game_id, self.delay, self.lateness = port, game_id, delay, lateness
        self.received = 0
        self.open = asyncio.Event()

    async def run(self, stop: asyncio.Event) -> None:
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
            while not stop.is_set():
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
                    for line in message.split(b"\r\n"):
                        if line.startswith(b"data: "):
                            event = json.loads(line[6:])
                            self.lateness.append(now - (event["recorded_at"] + self.delay))
                            self.received += 1
        finally:
            writer.close()


async def play(conn: Connection, game: dict, stop: asyncio.Event, interval: float, rng: random.Random) -> int:
    """Random legal moves at about one per ``interval`` seconds until ``stop``."""
    commands = 0
    await asyncio.sleep(rng.random() * interval)
    while not stop.is_set():
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
            if c["type"] != "Leave"
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
        await asyncio.sleep(interval)
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


async def bench(service: Service, games: int, spectators: int, seconds: float, delay: float) -> None:
    setup = Connection(service.port)
    rows = [await new_game(setup, delay) for _ in range(games)]
    await setup.close()
    await asyncio.sleep(1.0)
    rss_before = service.rss_kb()

    lateness: list[float] = []
    stop = asyncio.Event()
    streams = [Spectator(service.port, rows[i % games]["id"], delay, lateness) for i in range(spectators)]
    tasks = []
    for i, s in enumerate(streams):
        tasks.append(asyncio.create_task(s.run(stop)))
        if i % 50 == 49:
            await asyncio.sleep(0.05)
    await asyncio.wait_for(asyncio.gather(*(s.open.wait() for s in streams)), 120)
    await asyncio.sleep(delay + 1.0)  # the backlog (lobby events) has been delivered
    rss_open = service.rss_kb()
    lateness.clear()
    delivered_before = sum(s.received for s in streams)

    players = [Connection(service.port) for _ in range(games)]  # one per driver: not shareable
    rng = random.Random(1)
    interval = 2.0
    started = time.perf_counter()
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
    elapsed = stop_drivers - started + delay + 0.5
    delivered = sum(s.received for s in streams) - delivered_before
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
    for conn in players:
        await conn.close()

    per_stream = (rss_open - rss_before) * 1024 / spectators
    print_table(
        f"Spectator fan-out: {spectators} streams over {games} games, delay {delay:g} s, {machine()}",
        ["figure", "value", "target / baseline"],
        [
            ["commands played", commands, f"{commands / (stop_drivers - started):.1f}/s"],
            ["events delivered", delivered, ""],
            ["events delivered per second", f"{delivered / elapsed:.0f}", ""],
            ["lateness beyond delay p50 (ms)", f"{percentile(lateness, 50) * 1000:.1f}", ""],
            ["lateness beyond delay p99 (ms)", f"{percentile(lateness, 99) * 1000:.1f}", "< 250"],
            ["lateness beyond delay max (ms)", f"{max(lateness, default=0) * 1000:.1f}", ""],
            ["service RSS before streams (MB)", f"{rss_before / 1024:.1f}", "baseline"],
            ["service RSS with streams open (MB)", f"{rss_open / 1024:.1f}", ""],
            ["RSS per open stream (KB)", f"{per_stream / 1024:.1f}", "< 64"],
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--spectators", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--delay", type=float, default=2.0, help="spectator_delay of the games (s)")
    parser.add_argument("--url", help="PostgreSQL admin URL (default: the embedded server)")
    args = parser.parse_args()

    admin = args.url or start_postgres()
    url, name = fresh_database(admin, "fanout")
    try:
        with tempfile.TemporaryDirectory() as tmp, Service(url, data_dir=Path(tmp)) as service:
            asyncio.run(bench(service, args.games, args.spectators, args.seconds, args.delay))
    finally:
        drop_database(admin, name)


if __name__ == "__main__":
    main()
