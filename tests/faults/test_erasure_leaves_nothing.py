"""Nothing left behind (issue 41, docs/erasure.md): a player who sat in several games erases
themself, and their name and the texts they wrote are then found nowhere, byte for byte: not in
any table of the primary (the planner's statistics included), nor of its streaming replica, nor in
fresh exports, nor in the read models rebuilt from the log, nor in what two running instances
serve from their caches, nor in the service's or PostgreSQL's logs. Every chain still verifies and
the other players keep their names.

Beyond the service's reach, and asserted as such: the copy of a spectators' chunk that nginx
cached before the erasure (immutable for a year). Not scanned here: the files under the data
directories (the WAL, dead tuples that VACUUM leaves in a table's pages), WAL archives, backups;
docs/erasure.md says what an operator does about each."""

from __future__ import annotations

import asyncio
import io
import json
import os
import random
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import asyncpg
import httpx
import pytest

from projections.chunks import CHUNK_EVENTS
from projections.export.verify import verify_lines
from service.app.auth import Principal, issue
from service.config import Settings
from service.tools.bot import pick
from service.tools.client import PlaylogClient
from tests.e2e.sse import read_events
from tests.faults.conftest import OwnPostgres
from tests.faults.nginx import Nginx, nginx_binary
from tests.faults.processes import LOG_KEY, free_port, serve, stop, wait_healthy
from tests.faults.replica import Replica

pytestmark = pytest.mark.skipif(
    nginx_binary() is None, reason="no nginx found: apt-get install nginx-light (.ci/run does)"
)

SECRET = "erasure-suite-secret-long-enough-for-hs256"
NAME = "Zyxwv Quokkason"
REASON = "QQREASON-5e1f the kitten went back under the same card twice"
REPLY = "QQREPLY-9c7d yes, I saw it at my second draw"
OTHER = "Ottilie Keepname"  # a player who is not erased
GUEST = "Gustav Guestling"
# Each text whole and its distinctive parts, as UTF-8 and as PostgreSQL prints bytea (hex).
WORDS = [NAME, "Zyxwv", "Quokkason", REASON, "QQREASON", REPLY, "QQREPLY"]
NEEDLES = {w: [w.encode(), w.encode().hex().encode()] for w in WORDS}
REASON_PARAMS = {"reason": "legal_request"}  # a moderator's face-up read names why


def found(blob: bytes) -> list[str]:
    """The words ``blob`` holds, in any of their forms."""
    return [word for word, forms in NEEDLES.items() if any(form in blob for form in forms)]


def leaks(blobs: dict[str, bytes]) -> dict[str, list[str]]:
    """Where each word is found: ``{place: words}``, empty when nothing is left."""
    return {place: words for place, blob in blobs.items() if (words := found(blob))}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def dump(url: str) -> dict[str, bytes]:
    """Every row of every table of the database (system catalogs and the planner's statistics
    included) as ``COPY`` prints it, by table."""
    conn = await asyncpg.connect(url)
    try:
        tables = await conn.fetch(
            "SELECT c.oid::regclass::text AS name FROM pg_class c WHERE c.relkind IN ('r', 'm', 'p')"
        )
        out = {}
        for row in [*tables, {"name": "pg_stats"}]:
            buffer = io.BytesIO()
            await conn.copy_from_query(f"SELECT * FROM {row['name']}", output=buffer)
            out[row["name"]] = buffer.getvalue()
        return out
    finally:
        await conn.close()


async def analyze(url: str) -> None:
    """What autovacuum does on a live database now and then: the planner's statistics, which
    sample column values, taken of every table."""
    conn = await asyncpg.connect(url)
    try:
        await conn.execute("ANALYZE")
    finally:
        await conn.close()


async def left_behind(url: str, within: float = 30) -> dict[str, list[str]]:
    """What the database still holds of the words once the erasure has settled: the read models
    (and their statistics) follow the log within a projector's round or two."""
    deadline = time.monotonic() + within
    while (left := leaks(await dump(url))) and time.monotonic() < deadline:
        await asyncio.sleep(0.2)
    return left


async def replayed(primary: OwnPostgres, replica: Replica) -> None:
    """Once the replica has replayed everything the primary has written so far."""
    conn = await asyncpg.connect(primary.url)
    standby = await asyncpg.connect(replica.url)
    try:
        written = await conn.fetchval("SELECT pg_current_wal_lsn()")
        async with asyncio.timeout(60):
            while await standby.fetchval("SELECT pg_last_wal_replay_lsn() < $1::pg_lsn", written):
                await asyncio.sleep(0.05)
    finally:
        await standby.close()
        await conn.close()


class Game:
    """A game of the scan and the seats' tokens taken in it."""

    def __init__(self, label: str, game_id: uuid.UUID, host: str) -> None:
        self.label = label
        self.game_id = game_id
        self.host = host
        self.tokens: dict[int, str] = {}


class Deployment:
    """What the scenario made, read through any instance."""

    def __init__(self, moderator: dict[str, str]) -> None:
        self.moderator = moderator
        self.games: list[Game] = []
        self.players: dict[str, Any] = {}  # name -> the created player (id, token)
        self.disputes: list[str] = []

    async def create(self, http: httpx.AsyncClient, label: str, players: int) -> Game:
        options = {"players": players, "reaction_window": 0, "seed": 7}
        body = {"kind": "exploding_kittens", "options": options}
        made = await http.post("/games", json={**body, "public": True, "spectator_delay": 0})
        assert made.status_code == 201, made.text
        game = Game(label, uuid.UUID(made.json()["game_id"]), made.json()["host_token"])
        self.games.append(game)
        return game

    async def join(self, http: httpx.AsyncClient, game: Game, who: str) -> int:
        player = self.players.get(who)
        auth = bearer(player["token"]) if player else {}
        joined = await http.post(
            f"/games/{game.game_id}/seats", json={} if player else {"name": who}, headers=auth
        )
        assert joined.status_code == 201, joined.text
        seat: int = joined.json()["seat"]
        game.tokens[seat] = joined.json()["token"]
        return seat

    async def play(self, http: httpx.AsyncClient, game: Game, *, leaves: int | None) -> None:
        started = await http.post(f"/games/{game.game_id}/start", headers=bearer(game.host))
        assert started.status_code == 200, started.text
        if leaves is not None:
            left = await http.delete(
                f"/games/{game.game_id}/seats/{leaves}", headers=bearer(game.tokens[leaves])
            )
            assert left.status_code == 200, left.text

    async def play_past_a_chunk(self, http: httpx.AsyncClient, game: Game) -> None:
        """Legal commands until the spectators have a full chunk (its first events name the seats)."""
        api = PlaylogClient(str(http.base_url), http=http)
        rng = random.Random(4)
        while (await http.get(f"/games/{game.game_id}/spectate")).json()["version"] <= CHUNK_EVENTS:
            views = [await api.view(game.game_id, seat, token) for seat, token in game.tokens.items()]
            assert views[0].status == "running"
            choices = [(v, c) for v in views if (c := pick(rng, v.legal_commands)) is not None]
            view, command = rng.choice(choices)
            await api.send(game.game_id, view.seat, game.tokens[view.seat], command)

    async def everything(self, http: httpx.AsyncClient) -> dict[str, bytes]:
        """Every read path of the API on every game, as every reader (each seat, a spectator, a
        moderator, the other player), each response's bytes by its path."""
        reads: dict[str, bytes] = {}

        async def get(path: str, *, refusal: str | None = None, **kwargs: Any) -> None:
            """A 200, or else the ``refusal`` named."""
            response = await http.get(path, **kwargs)
            assert response.status_code == 200 or response.json()["code"] == refusal, (path, response.text)
            reads[f"{path} {kwargs.get('headers', {}).get('Authorization', '')[-8:]}"] = response.content

        async def stream(path: str, until: int, headers: dict[str, str] | None = None) -> None:
            if until:
                messages = await read_events(http, path, until=until, headers=headers)
                reads[f"{path} stream"] = json.dumps([(m.id, m.event, m.data) for m in messages]).encode()

        mod = self.moderator
        for status in ("open", "running", "finished"):
            await get("/games", params={"status": status})
        for player in self.players.values():
            await get(f"/players/{player['player_id']}")
        await get("/players/me/games", headers=bearer(self.players[OTHER]["token"]))
        await get("/moderation/disputes", headers=mod)
        await get("/moderation/incidents", headers=mod)
        for dispute_id in self.disputes:
            await get(f"/moderation/disputes/{dispute_id}", headers=mod, params=REASON_PARAMS)
        await get("/metrics")
        for game in self.games:
            base = f"/games/{game.game_id}"
            await get(base)
            await get(f"{base}/disputes")
            spectated = await http.get(f"{base}/spectate")
            reads[f"{base}/spectate"] = spectated.content
            await stream(f"{base}/spectate/stream", spectated.json()["version"])
            head = await http.get(f"{base}/spectate/head")
            if head.status_code == 200:
                reads[f"{base}/spectate/head"] = head.content
                document = head.json()
                size = document["chunk_events"]
                for k in range(document["chunks"]):
                    await get(f"{base}/spectate/chunks/{k * size + 1}-{(k + 1) * size}")
            for part in ("", "/log", "/diffs", "/state", "/transcript", "/verify"):
                await get(f"{base}/audit{part}", headers=mod, params=REASON_PARAMS)
            await get(f"{base}/export", headers=mod, params=REASON_PARAMS)
            await get(f"{base}/access", headers=mod)
            for seat, token in game.tokens.items():
                seated = f"{base}/seats/{seat}"
                await get(f"{base}/disputes", headers=bearer(token))
                view = await http.get(f"{seated}/view", headers=bearer(token))
                reads[f"{seated}/view"] = view.content
                await get(f"{seated}/events", headers=bearer(token))
                await get(f"{seated}/transcript", headers=bearer(token), refusal="game_not_finished")
                await stream(f"{seated}/stream", view.json()["version"], bearer(token))
        return reads


async def scenario(http: httpx.AsyncClient, deployment: Deployment) -> None:
    """The erased player, in four games: finished against the other player; finished, with a
    dispute raised and a moderator's question answered; running against a guest; a lobby."""
    for name in (NAME, OTHER):
        made = await http.post("/players", json={"name": name})
        assert made.status_code == 201, made.text
        deployment.players[name] = made.json()
    finished = await deployment.create(http, "finished", 2)
    await deployment.join(http, finished, NAME)
    await deployment.join(http, finished, OTHER)
    await deployment.play(http, finished, leaves=1)

    disputed = await deployment.create(http, "disputed", 2)
    await deployment.join(http, disputed, OTHER)
    mine = await deployment.join(http, disputed, NAME)
    await deployment.play(http, disputed, leaves=mine)
    raised = await http.post(
        f"/games/{disputed.game_id}/disputes",
        json={"seqs": [2], "category": "rules", "reason": REASON},
        headers=bearer(disputed.tokens[mine]),
    )
    assert raised.status_code == 201, raised.text
    dispute_id = raised.json()["dispute_id"]
    deployment.disputes.append(dispute_id)
    work = f"/moderation/disputes/{dispute_id}"
    mod = deployment.moderator
    assert (await http.post(f"{work}/claim", headers=mod)).status_code == 200
    asked = await http.post(
        f"{work}/questions", json={"seat": mine, "text": "What did you see?"}, headers=mod
    )
    assert asked.status_code == 201, asked.text
    replied = await http.post(
        f"/games/{disputed.game_id}/disputes/{dispute_id}/replies",
        json={"text": REPLY},
        headers=bearer(disputed.tokens[mine]),
    )
    assert replied.status_code == 201, replied.text

    running = await deployment.create(http, "running", 2)
    await deployment.join(http, running, NAME)
    await deployment.join(http, running, GUEST)
    await deployment.play(http, running, leaves=None)
    await deployment.play_past_a_chunk(http, running)

    lobby = await deployment.create(http, "lobby", 3)
    await deployment.join(http, lobby, NAME)


async def shown_everywhere(http: httpx.AsyncClient, deployment: Deployment, pseudonym: str) -> None:
    """Once the instance shows the pseudonym in every game (another instance hears of the
    erasure through a notification)."""
    async with asyncio.timeout(30):
        for game in deployment.games:
            while pseudonym not in (await http.get(f"/games/{game.game_id}")).json()["seats"]:
                await asyncio.sleep(0.05)


def cli(*args: str, database_url: str, workdir: Path) -> bytes:
    """``playlog ARGS`` as an operator runs it; its stdout and stderr together."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PLAYLOG_")}
    env.update(
        PLAYLOG_DATABASE_URL=database_url,
        PLAYLOG_DATA_DIR=str(workdir / "cli"),
        PLAYLOG_LOG_SIGNING_KEY=LOG_KEY,
        PLAYLOG_LOG_FORMAT="json",
    )
    done = subprocess.run(
        [sys.executable, "-m", "service.tools.cli", *args], env=env, capture_output=True, timeout=120
    )
    assert done.returncode == 0, (args, done.stdout[-2000:], done.stderr[-2000:])
    return done.stdout + done.stderr


class Instance(NamedTuple):
    url: str
    proc: subprocess.Popen[bytes]
    log: Path


@pytest.fixture
def instances(own_postgres: OwnPostgres, replica: Replica, workdir: Path) -> Iterator[list[Instance]]:
    """Two ``playlog serve`` processes on the primary, reading from the replica, logging JSON."""
    env = {"PLAYLOG_JWT_SECRET": SECRET, "PLAYLOG_READ_DATABASE_URL": replica.url}
    started = []
    try:
        for n in range(2):
            port, log = free_port(), workdir / f"instance{n}.log"
            proc = serve(workdir / f"data{n}", port, log, database_url=own_postgres.url, extra_env=env)
            started.append(Instance(f"http://127.0.0.1:{port}", proc, log))
        for instance in started:
            wait_healthy(*instance)
        yield started
    finally:
        for instance in started:
            stop(instance.proc)


@pytest.fixture
def cache(instances: list[Instance], workdir: Path) -> Iterator[Nginx]:
    """nginx with docker/nginx-chunks.conf in front of both instances."""
    (workdir / "nginx").mkdir()
    nginx = Nginx(workdir / "nginx", free_port(), [i.url.removeprefix("http://") for i in instances])
    try:
        nginx.wait_up()
        yield nginx
    finally:
        nginx.close()


async def test_an_erased_player_s_name_and_texts_are_left_nowhere(
    own_postgres: OwnPostgres, replica: Replica, instances: list[Instance], cache: Nginx, workdir: Path
) -> None:
    moderator = bearer(
        issue(Settings(jwt_secret=SECRET).keyring(), Principal(role="moderator", name="mo"), 3600)
    )
    deployment = Deployment(moderator)
    async with (
        httpx.AsyncClient(base_url=instances[0].url, timeout=30) as first,
        httpx.AsyncClient(base_url=instances[1].url, timeout=30) as second,
        httpx.AsyncClient(base_url=cache.url, timeout=30) as cached,
    ):
        await scenario(first, deployment)
        running = next(game for game in deployment.games if game.label == "running")
        first_chunk = f"/games/{running.game_id}/spectate/chunks/1-{CHUNK_EVENTS}"
        assert NAME in (await cached.get(first_chunk)).text  # the cache keeps a copy
        # Both instances have read (and cached) everything; the scans do see the words.
        for http in (first, second):
            assert set(found(b"".join((await deployment.everything(http)).values()))) == set(WORDS)
        await analyze(own_postgres.url)
        before = leaks(await dump(own_postgres.url))
        assert set(before["personal_texts"]) == set(WORDS)
        # No statistics are gathered on the columns that hold names or texts (migration 0018).
        assert "pg_statistic" not in before

        erased = await first.delete(
            "/players/me", params={"erase": "true"}, headers=bearer(deployment.players[NAME]["token"])
        )
        assert erased.status_code == 200, erased.text
        done = erased.json()
        assert sorted(done["games"]) == sorted(str(g.game_id) for g in deployment.games)
        assert done["kept"] == []
        pseudonym = done["pseudonym"]
        await shown_everywhere(second, deployment, pseudonym)

        # Every table of the primary, then of its replica.
        assert await left_behind(own_postgres.url) == {}
        await replayed(own_postgres, replica)
        assert leaks(await dump(replica.url)) == {}
        # Everything both instances serve, their caches filled before the erasure; every chain
        # verifies; the other players keep their names.
        for http in (first, second):
            reads = await deployment.everything(http)
            assert leaks(reads) == {}
            served = b"".join(reads.values())
            assert pseudonym.encode() in served and OTHER.encode() in served and GUEST.encode() in served
            for game in deployment.games:
                verify = f"/games/{game.game_id}/audit/verify"
                verified = (await http.get(verify, headers=moderator, params=REASON_PARAMS)).json()
                assert verified["ok"], (game.label, verified)
        # What a cache in front of the instances was given is out of their reach: the chunks are
        # immutable for a year, the name in the first one (an operator purges the cache).
        assert NAME in (await cached.get(first_chunk)).text
        assert NAME not in (await first.get(first_chunk)).text

    # Fresh exports, as an operator makes them, each verifying.
    exports = {}
    for game in deployment.games:
        lines = cli("export", str(game.game_id), database_url=own_postgres.url, workdir=workdir)
        exports[game.label] = lines
        report = verify_lines(lines.decode().splitlines(keepends=True))
        assert report.ok, (game.label, report.findings)
    assert leaks(exports) == {}
    # The read models rebuilt from the log.
    rebuilt = cli("projections", "rebuild", database_url=own_postgres.url, workdir=workdir)
    tables = await dump(own_postgres.url)
    assert leaks({"rebuild's output": rebuilt, **tables}) == {}
    assert OTHER.encode() in tables["players"] and pseudonym.encode() in tables["players"]

    # What the instances and both PostgreSQL servers logged, from their start to their end.
    for instance in instances:
        await asyncio.to_thread(stop, instance.proc)
    written = {str(i.log): i.log.read_bytes() for i in instances}
    written["primary's log"] = Path(own_postgres.server.log).read_bytes()
    written["replica's log"] = (replica.pgdata / "replica.log").read_bytes()
    assert leaks(written) == {}
