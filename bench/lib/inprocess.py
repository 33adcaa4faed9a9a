"""The app in process, for the benches that count what a command costs rather than time it
(bench/calls.py, bench/wal.py): requests straight into the ASGI app (no server, no sockets; its
lifespan, projector included, runs as under uvicorn), and the bot games of bench/commands.py's
driver played through it."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from contextlib import asynccontextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import Any

import msgspec

from bench.lib import bots, common

# Which request the code running now serves, for what it makes the database do
# (bench/lib/costs.py): "command" (a seat's POST .../commands), "other", or None (the app's own
# tasks: the projector, the scheduler). Tasks a request starts inherit it.
REQUEST: ContextVar[str | None] = ContextVar("request", default=None)


class Asgi:
    """Requests straight into the ASGI app."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def request(
        self, method: str, path: str, body: bytes = b"", token: str | None = None, key: str | None = None
    ) -> tuple[int, bytes]:
        path, _, query = path.partition("?")
        headers = [(b"host", b"bench")]
        if token:
            headers.append((b"authorization", f"Bearer {token}".encode()))
        if body:
            headers += [(b"content-type", b"application/json"), (b"content-length", b"%d" % len(body))]
        if key:
            headers.append((b"idempotency-key", key.encode()))
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method,
            "scheme": "http", "path": path, "raw_path": path.encode(), "query_string": query.encode(),
            "root_path": "", "headers": headers, "client": ("127.0.0.1", 1),
            "server": ("127.0.0.1", 80), "state": {},
        }  # fmt: skip
        sent = False

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": body, "more_body": False}
            await asyncio.Event().wait()  # no disconnect
            return {}

        status = 0
        chunks: list[bytes] = []

        async def send(message: dict[str, Any]) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            else:
                chunks.append(message.get("body", b""))

        serving = REQUEST.set("command" if method == "POST" and path.endswith("/commands") else "other")
        try:
            await self.app(scope, receive, send)
        finally:
            REQUEST.reset(serving)
        return status, b"".join(chunks)

    async def call(
        self, method: str, path: str, body: Any = None, token: str | None = None, key: str | None = None
    ) -> Any:
        encoded = msgspec.json.encode(body) if body else b""
        status, data = await self.request(method, path, encoded, token, key)
        if status >= 400:
            raise common.HttpError(status, data)
        return msgspec.json.decode(data) if data else None


@asynccontextmanager
async def running_app(
    url: str, name: str, data_dir: Path | None = None, **settings: Any
) -> AsyncIterator[Asgi]:
    """The app on ``url``, started and stopped through its ASGI lifespan, with the benches' settings
    and ``settings`` (its files in ``data_dir``, by default the benches' directory's ``name``)."""
    from service.config import Settings
    from service.http.app import create_app

    app = create_app(
        Settings(
            database_url=url,
            data_dir=data_dir or common.DEFAULT_DATA_DIR / name,
            jwt_secret="bench-secret-bench-secret-bench-secret",
            log_format="json",
            rate_limit_writes="off",
            rate_limit_commands="100000/second",  # on, as in bench/commands.py, never met
            **settings,
        )
    )
    lifespan_in: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    lifespan_out: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    lifespan = asyncio.create_task(
        app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, lifespan_in.get, lifespan_out.put)
    )
    await lifespan_in.put({"type": "lifespan.startup"})
    await lifespan_out.get()
    try:
        yield Asgi(app)
    finally:
        await lifespan_in.put({"type": "lifespan.shutdown"})
        await lifespan


def new_counts() -> dict[str, int]:
    return {"commands": 0, "other": 0, "errors": 0, "games": 0}


async def play(client: Asgi, rng: random.Random, counts: dict[str, int], more: Callable[[int], bool]) -> None:
    """Bot games, a new one when one ends, while ``more(commands this driver has sent)``: each
    create and command with an ``Idempotency-Key`` (a keyed create's game id is the key's, so
    ``rng`` names the games) and each command with ``?view=true``, a seat's view read when
    another seat acts. ``counts``: commands, errors, games and the other requests (lobby, views)."""
    sent = 0
    while more(sent):
        players = rng.randint(2, 5)
        options = {"players": players, "reaction_window": 0}
        body = {"kind": "exploding_kittens", "options": options, "spectator_delay": 0}
        created = await client.call("POST", "/games", body, key=f"{rng.getrandbits(64):016x}")
        game = created["game_id"]
        tokens = [
            (await client.call("POST", f"/games/{game}/seats", {"name": f"bot-{n}"}))["token"]
            for n in range(players)
        ]
        await client.call("POST", f"/games/{game}/start", token=created["host_token"])
        view = await client.call("GET", f"/games/{game}/seats/0/view", token=tokens[0])
        counts["games"] += 1
        counts["other"] += players + 3
        while more(sent) and view["status"] != "finished":
            choice = None
            for seat in bots.actors(view["view"]["public"], players):
                if view["seat"] != seat:
                    view = await client.call("GET", f"/games/{game}/seats/{seat}/view", token=tokens[seat])
                    counts["other"] += 1
                legal = [c for c in view["view"]["legal_commands"] if c["type"] not in bots.AVOIDED]
                if legal:
                    choice = (seat, rng.choice(legal))
                    break
            if choice is None:
                break
            seat, command = choice
            path = f"/games/{game}/seats/{seat}/commands?view=true"
            key = f"{rng.getrandbits(64):016x}"
            status, data = await client.request("POST", path, msgspec.json.encode(command), tokens[seat], key)
            sent += 1
            counts["commands"] += 1
            if status >= 400:
                counts["errors"] += 1
                view = await client.call("GET", f"/games/{game}/seats/{seat}/view", token=tokens[seat])
                continue
            view = msgspec.json.decode(data)["view"]


async def play_for(client: Asgi, games: int, seed: int, seconds: float) -> dict[str, int]:
    """``games`` bot games at once for ``seconds``; what they did."""
    counts = new_counts()
    stop_at = time.monotonic() + seconds
    await asyncio.gather(
        *(
            play(client, random.Random(seed + n), counts, lambda _: time.monotonic() < stop_at)
            for n in range(games)
        )
    )
    return counts


async def cpu_of_play(client: Asgi, games: int, seconds: float) -> tuple[dict[str, int], float, float]:
    """What ``games`` bot games did in ``seconds``, the process's CPU seconds per command meanwhile
    (the driver's share in it), then per ``GET /healthz``."""
    cpu = time.process_time()
    counts = await play_for(client, games, 200, seconds)
    per_command = (time.process_time() - cpu) / max(1, counts["commands"])
    cpu = time.process_time()
    for _ in range(2000):
        await client.request("GET", "/healthz")
    return counts, per_command, (time.process_time() - cpu) / 2000


def run(prefix: str, measure: Callable[[str], Coroutine[Any, Any, None]], url: str | None = None) -> None:
    """``measure(url)`` on a fresh database (dropped afterwards; ``url``: on that one instead),
    without a log line per command."""
    import logging

    from service.runtime import log as logs

    logs.configure("json", level=logging.WARNING)
    common.install_uvloop()
    if url is not None:
        asyncio.run(measure(url))
        return
    admin = common.start_postgres()
    url, name = common.fresh_database(admin, prefix)
    try:
        asyncio.run(measure(url))
    finally:
        common.drop_database(admin, name)
