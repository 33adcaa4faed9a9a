"""Debian's nginx with docker/nginx-chunks.conf, on loopback, in front of a live server: the
spectators' chunks come through it cached and immutable and their chain verifies, the head is
short-lived, no chunk is ever readable before its release (through the cache or not), and a
private game has nothing there."""

from __future__ import annotations

import asyncio
import json
import random
import time
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from projections.chunks import CHUNK_EVENTS, chunk_range, genesis, verify
from service.tools.bot import pick
from service.tools.client import CreatedGame, PlaylogClient
from tests.faults.nginx import Nginx, nginx_binary
from tests.faults.processes import free_port

pytestmark = pytest.mark.skipif(
    nginx_binary() is None, reason="no nginx found: apt-get install nginx-light (.ci/run does)"
)

DELAY = 3.0
EK = {"players": 2, "reaction_window": 0, "seed": 3}
SPANS = [chunk_range(k) for k in range(4)]


@pytest.fixture
async def cache(server_url: str, workdir: Path) -> AsyncIterator[Nginx]:
    nginx = Nginx(workdir, free_port(), [server_url.removeprefix("http://")])
    try:
        await asyncio.to_thread(nginx.wait_up)
        yield nginx
    finally:
        nginx.close()


async def _play(api: PlaylogClient, created: CreatedGame, commands: int) -> None:
    seats = [await api.join(created.game_id, f"p{n}") for n in range(2)]
    await api.start(created.game_id, created.host_token)
    rng = random.Random(2)
    for _ in range(commands):
        views = [await api.view(created.game_id, s.seat, s.token) for s in seats]
        if views[0].status == "finished":
            return
        choices = [(v, c) for v in views if (c := pick(rng, v.legal_commands)) is not None]
        view, command = rng.choice(choices)
        await api.send(created.game_id, view.seat, seats[view.seat].token, command)


async def _probe(
    http: httpx.AsyncClient, base: str, game_id: uuid.UUID, found: list[tuple[float, dict[str, Any]]]
) -> None:
    """Poll every chunk ahead of its release; keep each 200 with the instant it was received."""
    while True:
        for start, end in SPANS:
            response = await http.get(f"{base}/games/{game_id}/spectate/chunks/{start}-{end}")
            received = time.time()
            if response.status_code == 200:
                found.append((received, response.json()))
            else:
                assert (response.status_code, response.headers["cache-control"]) == (404, "public, max-age=1")
        await asyncio.sleep(0.05)


async def test_chunks_come_through_nginx_cached_immutable_verified_and_never_early(
    server_url: str, cache: Nginx
) -> None:
    async with httpx.AsyncClient(base_url=server_url, timeout=30) as http:
        api = PlaylogClient(server_url, http=http)
        created = await api.create_game("exploding_kittens", EK, public=True, spectator_delay=DELAY)
        game = created.game_id
        found: list[tuple[float, dict[str, Any]]] = []
        probes = [asyncio.create_task(_probe(http, base, game, found)) for base in (cache.url, server_url)]
        try:
            await _play(api, created, 60)
            # Until the cache's head shows two full chunks released (the probes keep polling).
            deadline = time.monotonic() + 60
            head: dict[str, Any] = {}
            while time.monotonic() < deadline and head.get("chunks", 0) < 2:
                head = (await http.get(f"{cache.url}/games/{game}/spectate/head")).json()
                await asyncio.sleep(0.2)
            assert head["chunks"] >= 2
        finally:
            for probe in probes:
                probe.cancel()
            await asyncio.gather(*probes, return_exceptions=True)

        # Nothing early: every chunk a probe read was released, all of it, when it arrived.
        assert {body["start"] for _, body in found} >= {1, 17}
        for received, body in found:
            released = max(json.loads(text)["recorded_at"] for text in body["events"]) + DELAY
            assert released <= received

        # Cached and immutable: each chunk reached the origin with a 200 once, however often read.
        prev = genesis(game)
        response = await http.get(f"{cache.url}/games/{game}/spectate/head")
        head = response.json()
        for k in range((head["tail"]["start"] - 1) // CHUNK_EVENTS):
            path = f"/games/{game}/spectate/chunks/{k * CHUNK_EVENTS + 1}-{(k + 1) * CHUNK_EVENTS}"
            first = await http.get(cache.url + path)
            while first.status_code == 404:  # a 404 read before the release, cached for a second
                await asyncio.sleep(0.1)
                first = await http.get(cache.url + path)
            again = await http.get(cache.url + path)
            assert first.headers["cache-control"] == "public, max-age=31536000, immutable"
            assert (again.headers["x-cache"], again.content) == ("HIT", first.content)
            prev = verify(prev, first.json()["events"], first.json()["hashes"])
        # The head through the cache: short-lived, with an ETag; the chain reaches its hash.
        assert response.headers["cache-control"] == "public, max-age=1"
        assert verify(prev, head["tail"]["events"], head["tail"]["hashes"]).hex() == head["head"]
        # A viewer that has the head sends its ETag: 304 while unchanged (until a release changes it).
        for _ in range(20):
            etag = (await http.get(f"{cache.url}/games/{game}/spectate/head")).headers["etag"]
            again = await http.get(f"{cache.url}/games/{game}/spectate/head", headers={"If-None-Match": etag})
            if again.status_code == 304:
                break
        assert (again.status_code, again.headers["etag"]) == (304, etag)
        served = Counter(path for _, _, status, path in cache.origin_requests() if status == 200)
        read = [
            f"/games/{game}/spectate/chunks/{a}-{b}" for a, b in map(chunk_range, range(head["chunks"] - 1))
        ]
        assert read and all(served[path] == 1 for path in read)
        assert all(count == 1 for path, count in served.items() if "/chunks/" in path)


async def test_a_private_game_has_nothing_in_the_cache(server_url: str, cache: Nginx) -> None:
    async with httpx.AsyncClient(base_url=server_url, timeout=30) as http:
        api = PlaylogClient(server_url, http=http)
        created = await api.create_game("exploding_kittens", EK, public=False, spectator_delay=0)
        await _play(api, created, 25)
        for path in ("head", "chunks/1-16"):
            url = f"{cache.url}/games/{created.game_id}/spectate/{path}"
            answers = [await http.get(url) for _ in range(2)]
            assert [a.status_code for a in answers] == [404, 404]
            assert answers[0].json() == answers[1].json()
            assert answers[0].json()["code"] == "not_published"
            assert answers[0].headers["cache-control"] == "public, max-age=1"
        reached = [status for _, _, status, path in cache.origin_requests() if str(created.game_id) in path]
        assert reached and set(reached) == {404}
