"""Python function calls per command and per ``GET /healthz``: a cost that does not move with load.

Run: ``.venv/bin/python bench/calls.py [--games 10] [--seconds 10]``

On a shared machine CPU seconds per request move by up to 2x between identical runs; the number
of Python function calls the service makes does not. The app is called in process through raw
ASGI (no server, no client sockets; its lifespan runs as under uvicorn), on a fresh database,
with the bot games of bench/commands.py: each command with an ``Idempotency-Key`` and
``?view=true``, a seat's view read when another seat acts, and a new game when one ends. cProfile
counts every call in the process during the measured window (the driver's own calls are a few
percent), then during 200 ``GET /healthz``. Use it before and after a change to the service
(``PLAYLOG_BENCH_SERVICE_ROOT``, see bench/README.md).
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import pstats
import random
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _common as common
import commands as closed_loop
import msgspec


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

        await self.app(scope, receive, send)
        return status, b"".join(chunks)

    async def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        status, data = await self.request(method, path, msgspec.json.encode(body) if body else b"", token)
        if status >= 400:
            raise common.HttpError(status, data)
        return msgspec.json.decode(data) if data else None


async def play(client: Asgi, rng: random.Random, counts: dict[str, int], stop_at: float) -> None:
    while time.monotonic() < stop_at:
        players = rng.randint(2, 5)
        options = {"players": players, "reaction_window": 0}
        created = await client.call(
            "POST", "/games", {"kind": "exploding_kittens", "options": options, "spectator_delay": 0}
        )
        game = created["game_id"]
        tokens = [
            (await client.call("POST", f"/games/{game}/seats", {"name": f"bot-{n}"}))["token"]
            for n in range(players)
        ]
        await client.call("POST", f"/games/{game}/start", token=created["host_token"])
        view = await client.call("GET", f"/games/{game}/seats/0/view", token=tokens[0])
        counts["other"] += players + 3
        while time.monotonic() < stop_at and view["status"] != "finished":
            choice = None
            for seat in closed_loop.actors(view["view"]["public"], players):
                if view["seat"] != seat:
                    view = await client.call("GET", f"/games/{game}/seats/{seat}/view", token=tokens[seat])
                    counts["other"] += 1
                legal = [c for c in view["view"]["legal_commands"] if c["type"] not in closed_loop.AVOIDED]
                if legal:
                    choice = (seat, rng.choice(legal))
                    break
            if choice is None:
                break
            seat, command = choice
            path = f"/games/{game}/seats/{seat}/commands?view=true"
            key = f"{rng.getrandbits(64):016x}"
            status, data = await client.request("POST", path, msgspec.json.encode(command), tokens[seat], key)
            counts["commands"] += 1
            if status >= 400:
                counts["errors"] += 1
                view = await client.call("GET", f"/games/{game}/seats/{seat}/view", token=tokens[seat])
                continue
            view = msgspec.json.decode(data)["view"]


async def measure(url: str, games: int, seconds: float) -> None:
    from service.app import create_app
    from service.config import Settings

    settings = Settings(
        database_url=url,
        data_dir=common.DEFAULT_DATA_DIR / "calls",
        jwt_secret="bench-secret-bench-secret-bench-secret",
        log_format="json",
        rate_limit_writes="off",
        rate_limit_commands="100000/second",  # on, as in bench/commands.py, never met
    )
    app = create_app(settings)
    lifespan_in: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    lifespan_out: asyncio.Queue[dict[str, str]] = asyncio.Queue()
    lifespan = asyncio.create_task(
        app({"type": "lifespan", "asgi": {"version": "3.0"}, "state": {}}, lifespan_in.get, lifespan_out.put)
    )
    await lifespan_in.put({"type": "lifespan.startup"})
    await lifespan_out.get()
    client = Asgi(app)
    counts = {"commands": 0, "other": 0, "errors": 0}
    warmup = time.monotonic() + 2
    await asyncio.gather(*(play(client, random.Random(n), counts, warmup) for n in range(games)))
    counts = {"commands": 0, "other": 0, "errors": 0}
    profile = cProfile.Profile()
    profile.enable()
    stop_at = time.monotonic() + seconds
    await asyncio.gather(*(play(client, random.Random(100 + n), counts, stop_at) for n in range(games)))
    profile.disable()
    per_command = pstats.Stats(profile).total_calls / max(1, counts["commands"])  # type: ignore[attr-defined]
    healthz = cProfile.Profile()
    healthz.enable()
    for _ in range(200):
        await client.request("GET", "/healthz")
    healthz.disable()
    per_healthz = pstats.Stats(healthz).total_calls / 200  # type: ignore[attr-defined]
    await lifespan_in.put({"type": "lifespan.shutdown"})
    await lifespan
    requests = (counts["commands"] + counts["other"]) / max(1, counts["commands"])
    print(f"playlog bench/calls.py  ({common.machine()})")
    common.print_table(
        f"Python function calls, app in process, {games} games, {seconds:g} s",
        ["figure", "value"],
        [
            ["commands (errors)", f"{counts['commands']} ({counts['errors']})"],
            ["requests per command (the command, views, lobby)", f"{requests:.2f}"],
            ["calls per command, its views and lobby share included", f"{per_command:,.0f}"],
            ["calls per GET /healthz (the floor)", f"{per_healthz:,.0f}"],
            [
                "per command / (floor x requests per command)",
                f"{per_command / (per_healthz * requests):.2f}x",
            ],
        ],
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=10)
    parser.add_argument("--seconds", type=float, default=10.0)
    args = parser.parse_args()
    import logging

    from service import log as logs

    logs.configure("json", level=logging.WARNING)  # no log line per command on the terminal
    admin = common.start_postgres()
    url, name = common.fresh_database(admin, "calls")
    try:
        common.install_uvloop()
        asyncio.run(measure(url, args.games, args.seconds))
    finally:
        common.drop_database(admin, name)


if __name__ == "__main__":
    main()
