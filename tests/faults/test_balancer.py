"""Three ``playlog serve`` instances on one database behind HAProxy (docker/haproxy.cfg, run on
loopback): requests are spread round robin, streams follow appends made through other instances,
and an instance killed behind the balancer costs no acknowledged command and no game."""

from __future__ import annotations

import asyncio
import json
import random
import signal
import subprocess
import uuid
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from service.http.api.problems import RACES
from service.tools.bot import pick
from service.tools.client import ApiError, JoinedSeat, PlaylogClient
from tests.faults.balancer import INSTANCE_HEADER, HAProxy, haproxy_binary
from tests.faults.load import Load, check_games, wait_for_events
from tests.faults.processes import free_port, logged_errors, serve, stop, wait_healthy

SECRET = "fault-suite-secret-long-enough-for-hs256"
INSTANCES = 3

pytestmark = pytest.mark.skipif(
    haproxy_binary() is None, reason="no haproxy found: apt-get install haproxy (.ci/run does)"
)


@dataclass
class Cluster:
    balancer: HAProxy
    procs: list[subprocess.Popen[bytes]]
    logs: list[Path]
    urls: list[str]  # each instance's own address, past the balancer
    # Which instance answered each response through the balancer, in the order they came back.
    answered_by: list[str] = field(default_factory=list)

    def client(self, **kwargs: Any) -> httpx.AsyncClient:
        async def record(response: httpx.Response) -> None:
            self.answered_by.append(response.headers[INSTANCE_HEADER])

        return httpx.AsyncClient(
            base_url=self.balancer.url, timeout=30, event_hooks={"response": [record]}, **kwargs
        )


@asynccontextmanager
async def cluster(database_url: str, workdir: Path) -> AsyncIterator[Cluster]:
    ports = [free_port() for _ in range(INSTANCES)]
    logs = [workdir / f"instance{n}.log" for n in range(INSTANCES)]
    env = {"PLAYLOG_JWT_SECRET": SECRET}  # every instance accepts the tokens any one issued
    procs = [
        serve(workdir / f"data{n}", ports[n], logs[n], database_url=database_url, extra_env=env)
        for n in range(INSTANCES)
    ]
    balancer = HAProxy(workdir, free_port(), ports)
    try:
        await asyncio.gather(
            *(
                asyncio.to_thread(wait_healthy, f"http://127.0.0.1:{port}", proc, log)
                for port, proc, log in zip(ports, procs, logs, strict=True)
            )
        )
        await asyncio.to_thread(balancer.wait_all_up)
        yield Cluster(balancer, procs, logs, [f"http://127.0.0.1:{port}" for port in ports])
    finally:
        balancer.close()
        for proc in procs:
            await asyncio.to_thread(stop, proc, signal.SIGTERM)


async def send(api: PlaylogClient, game_id: uuid.UUID, seat: JoinedSeat, command: Any, version: int) -> bool:
    """Send one command; False when the game moved on first (a deadline the server resolved)."""
    try:
        await api.send(game_id, seat.seat, seat.token, command, expected_version=version)
    except ApiError as exc:
        if exc.code not in RACES:
            raise
        return False
    return True


async def test_a_game_through_the_balancer_sends_each_request_to_the_next_instance(
    database_url: str, workdir: Path
) -> None:
    async with cluster(database_url, workdir) as c, c.client() as http:
        api = PlaylogClient(c.balancer.url, http=http)
        created = await api.create_game("exploding_kittens", {"players": 2, "reaction_window": 0})
        seats = [await api.join(created.game_id, f"p{n}") for n in range(2)]
        await api.start(created.game_id, created.host_token)
        rng = random.Random(1)
        for _ in range(30):  # one request at a time: the order of answers is the order sent
            views = [await api.view(created.game_id, s.seat, s.token) for s in seats]
            if views[0].status == "finished":
                break
            for view in views:
                command = pick(rng, view.legal_commands)
                if command is not None:
                    seat = seats[view.seat]
                    await send(api, created.game_id, seat, command, view.version)
                    break
        answered = c.answered_by
        assert len(set(answered)) == INSTANCES
        # Round robin: every request went to another instance than the one before it, in turn.
        for n in range(INSTANCES, len(answered)):
            assert answered[n] == answered[n - INSTANCES]
        assert all(answered[n] != answered[n - 1] for n in range(1, len(answered)))
    assert [logged_errors(log) for log in c.logs] == [[]] * INSTANCES


async def _stream(http: httpx.AsyncClient, path: str, token: str | None, out: dict[str, Any]) -> None:
    """Read an SSE stream to its end: the instance it is held on and its events' (id, type)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with http.stream("GET", path, headers=headers, timeout=None) as response:
        assert response.status_code == 200
        out["instance"] = response.headers[INSTANCE_HEADER]
        fields: dict[str, str] = {}
        async for line in response.aiter_lines():
            if line == "":
                if "id" in fields:
                    out.setdefault("events", []).append(
                        (int(fields["id"]), json.loads(fields["data"])["type"])
                    )
                fields = {}
            elif not line.startswith(":"):
                key, _, value = line.partition(":")
                fields[key] = value.removeprefix(" ")


async def test_streams_held_on_one_instance_see_appends_made_through_the_others(
    database_url: str, workdir: Path
) -> None:
    # HAProxy balances requests, not connections. Were the views read through it too, a turn of
    # two views and a command (three requests, three instances) would send every command to the
    # same instance: the views go straight to one instance, so the commands take turns.
    async with (
        cluster(database_url, workdir) as c,
        c.client() as http,
        httpx.AsyncClient(base_url=c.urls[0], timeout=30) as direct,
    ):
        api = PlaylogClient(c.balancer.url, http=http)
        reader = PlaylogClient(c.urls[0], http=direct)
        created = await api.create_game(
            "exploding_kittens", {"players": 2, "reaction_window": 0}, public=True, spectator_delay=0
        )
        seats = [await api.join(created.game_id, f"p{n}") for n in range(2)]
        await api.start(created.game_id, created.host_token)
        seat_stream: dict[str, Any] = {}
        spectator_stream: dict[str, Any] = {}
        base = f"/games/{created.game_id}"
        readers = [
            asyncio.create_task(_stream(http, f"{base}/seats/0/stream", seats[0].token, seat_stream)),
            asyncio.create_task(_stream(http, f"{base}/spectate/stream", None, spectator_stream)),
        ]
        rng = random.Random(2)
        appended_by: Counter[str] = Counter()
        for _ in range(2000):
            views = [await reader.view(created.game_id, s.seat, s.token) for s in seats]
            if views[0].status == "finished":
                break
            choices = [(v, cmd) for v in views if (cmd := pick(rng, v.legal_commands)) is not None]
            if not choices:
                await asyncio.sleep(0.05)
                continue
            view, command = rng.choice(choices)
            seat = seats[view.seat]
            if await send(api, created.game_id, seat, command, view.version):
                appended_by[c.answered_by[-1]] += 1
        assert views[0].status == "finished"
        async with asyncio.timeout(30):  # both streams end with the game
            await asyncio.gather(*readers)
        assert len(appended_by) >= 2, appended_by  # the commands took turns (a refused one skips a turn)
        for stream in (seat_stream, spectator_stream):
            others = {instance for instance in appended_by if instance != stream["instance"]}
            assert others, appended_by  # commands went through instances other than the stream's
        # Each stream got every event its viewer may see, in order, whichever instance appended it.
        seat_events = await api.events(created.game_id, 0, seats[0].token)
        assert seat_stream["events"] == [(e.seq, e.type) for e in seat_events]
        spectated = spectator_stream["events"]
        assert [n for n, _ in spectated] == list(range(1, len(spectated) + 1))
        assert spectated[-1][1] == seat_events[-1].type  # the game's end, public, reached both
    assert [logged_errors(log) for log in c.logs] == [[]] * INSTANCES


async def test_an_instance_killed_behind_the_balancer_costs_no_command_and_no_game(
    database_url: str, workdir: Path
) -> None:
    async with cluster(database_url, workdir) as c:
        load = Load([c.balancer.url], games=4)
        playing = asyncio.create_task(load.run())
        await wait_for_events(database_url, 80)
        c.procs[0].kill()  # SIGKILL: requests in flight on it are cut off
        await asyncio.to_thread(c.procs[0].wait)
        await playing
    # Clients retried with the same Idempotency-Key (HAProxy resent what the dead instance never
    # answered): every acknowledged command is in the log once, and every game finished.
    await check_games(database_url, load)
    assert load.statuses[500] == 0, load.statuses
    assert [logged_errors(log) for log in c.logs[1:]] == [[]] * (INSTANCES - 1)
