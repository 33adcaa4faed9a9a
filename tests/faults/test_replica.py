"""Reads on a real streaming replica (``PLAYLOG_READ_DATABASE_URL``): they are served there once
it has the seq they need, and a replica held back (replay paused) never shows a game going back:
the read waits, then falls back to the primary."""

from __future__ import annotations

import asyncio
import random
import uuid
from pathlib import Path
from typing import Any

import httpx
from prometheus_client import REGISTRY

from service.app.games import GameService
from service.config import Settings
from service.http.api.problems import RACES
from service.store.events import EventStore
from service.store.pool import create_pool
from service.store.replica import Reads
from service.tools.bot import pick
from service.tools.client import ApiError, JoinedSeat, PlaylogClient
from tests.conftest import live_server
from tests.e2e.sse import read_events
from tests.faults.conftest import OwnPostgres
from tests.faults.replica import Replica

OPTIONS = {"players": 2, "reaction_window": 0}


def served_by(where: str) -> float:
    return REGISTRY.get_sample_value("playlog_replica_reads_total", {"served_by": where}) or 0.0


class Counts:
    """How many replica-eligible reads each side served since the last ``delta()``."""

    def __init__(self) -> None:
        self.last = (served_by("replica"), served_by("primary"))

    def delta(self) -> tuple[float, float]:
        now = (served_by("replica"), served_by("primary"))
        replica, primary = now[0] - self.last[0], now[1] - self.last[1]
        self.last = now
        return replica, primary


async def caught_up(replica: Replica, game_id: uuid.UUID, seq: int) -> None:
    async with asyncio.timeout(60):
        while await replica.seq(game_id) < seq:
            await asyncio.sleep(0.05)


async def play(
    api: PlaylogClient, game_id: uuid.UUID, seats: list[JoinedSeat], commands: int, rng: Any
) -> None:
    """Up to ``commands`` random legal commands (fewer if the game ends first)."""
    sent = 0
    while sent < commands:
        views = [await api.view(game_id, s.seat, s.token) for s in seats]
        if views[0].status == "finished":
            return
        choices = [(v, c) for v in views if (c := pick(rng, v.legal_commands)) is not None]
        if not choices:
            await asyncio.sleep(0.02)
            continue
        view, command = rng.choice(choices)
        try:
            await api.send(game_id, view.seat, seats[view.seat].token, command, expected_version=view.version)
        except ApiError as exc:
            if exc.code not in RACES:
                raise
            continue
        sent += 1


async def test_reads_are_served_by_the_replica_and_a_paused_replica_never_shows_the_game_going_back(
    own_postgres: OwnPostgres, replica: Replica, workdir: Path
) -> None:
    settings = Settings(
        database_url=own_postgres.url,
        read_database_url=replica.url,
        replica_wait=2.0,  # generous: a caught-up replica always answers within it
        data_dir=workdir / "data",
        jwt_secret="replica-suite-secret-long-enough-for-hs256",
        scheduler_interval=0.02,
        log_format="json",
    )
    primary = EventStore(await create_pool(own_postgres.url, min_size=1, max_size=2))
    rng = random.Random(5)
    async with live_server(settings) as url, httpx.AsyncClient(base_url=url, timeout=30) as http:
        api = PlaylogClient(url, http=http)
        created = await api.create_game("exploding_kittens", OPTIONS, public=True, spectator_delay=0)
        game_id = created.game_id
        seats = [await api.join(game_id, f"p{n}") for n in range(2)]
        await api.start(game_id, created.host_token)
        await play(api, game_id, seats, 5, rng)
        shown: list[int] = []  # every spectator snapshot's version, in order

        async def snapshot() -> int:
            response = await http.get(f"/games/{game_id}/spectate/")
            assert response.status_code == 200
            version: int = response.json()["version"]
            shown.append(version)
            return version

        # Caught up: the replica serves the snapshot, the listing and the seat's resumed stream.
        await caught_up(replica, game_id, await primary.current_seq(game_id))
        counts = Counts()
        assert await snapshot() == await primary.current_seq(game_id)  # a spectator sees every event
        assert (await http.get("/games")).status_code == 200  # a read model: as the replica has it
        assert counts.delta() == (2, 0)

        # Held back: replay paused, the game goes on on the primary only.
        await replica.pause()
        lagging_at = await replica.seq(game_id)
        seat_version = (await api.view(game_id, 0, seats[0].token)).version
        await play(api, game_id, seats, 6, rng)
        head = await primary.current_seq(game_id)
        assert await replica.seq(game_id) == lagging_at < head  # the replica really lags
        assert await snapshot() == head  # not the replica's older state: the primary's
        assert counts.delta() == (0, 1)
        # A seat resuming its stream after what it saw gets everything since, none of it lost.
        new_version = (await api.view(game_id, 0, seats[0].token)).version
        resumed = await read_events(
            http,
            f"/games/{game_id}/seats/0/stream",
            headers={"Authorization": f"Bearer {seats[0].token}", "Last-Event-ID": str(seat_version)},
            until=new_version,
        )
        assert [m.id for m in resumed] == list(range(seat_version + 1, new_version + 1))
        assert counts.delta()[1] >= 1  # the stream's feed fell back to the primary

        # Replay resumed: the replica serves again once it has replayed what the read needs.
        await replica.resume()
        await caught_up(replica, game_id, head)
        assert await snapshot() == head
        assert counts.delta() == (1, 0)
        await play(api, game_id, seats, 5000, rng)  # to the end
        end = await primary.current_seq(game_id)
        await caught_up(replica, game_id, end)
        log = (await http.get(f"/games/{game_id}/audit/log")).json()
        assert [e["seq"] for e in log] == list(range(1, end + 1))
        transcript = await http.get(
            f"/games/{game_id}/seats/0/transcript", headers={"Authorization": f"Bearer {seats[0].token}"}
        )
        assert transcript.status_code == 200
        assert counts.delta()[0] >= 2  # the audit log and the transcript, on the replica
    await primary.db.close()
    assert shown == sorted(shown)  # never backwards


async def test_a_read_waits_for_a_lagging_replica_then_falls_back_to_the_primary(
    own_postgres: OwnPostgres, replica: Replica
) -> None:
    pool = await create_pool(own_postgres.url, min_size=1, max_size=4)
    replica_pool = await create_pool(replica.url, min_size=1, max_size=4)
    try:
        primary = EventStore(pool)
        games = GameService(primary)
        game_id, _ = await games.lobby.create("exploding_kittens", OPTIONS, public=True, spectator_delay=0)
        await caught_up(replica, game_id, 1)
        await replica.pause()
        await games.lobby.join(game_id, "a")
        await games.lobby.join(game_id, "b")
        counts = Counts()

        # The replica has seq 1 only: a read that needs seq 3 gets it from the primary.
        impatient = Reads(primary, EventStore(replica_pool), wait=0.0)
        assert [e.seq for e in await impatient.events(game_id, needs=3)] == [1, 2, 3]
        assert counts.delta() == (0, 1)
        # A read that needs only what the replica has is served there (the older part of the log).
        assert [e.seq for e in await impatient.events(game_id, up_to_seq=1, needs=3)] == [1]
        assert counts.delta() == (1, 0)

        # A patient read waits while the replica catches up, and is served by it.
        patient = Reads(primary, EventStore(replica_pool), wait=60.0)
        reading = asyncio.create_task(patient.events(game_id, needs=3))
        await asyncio.sleep(0.1)
        assert not reading.done()
        await replica.resume()
        assert [e.seq for e in await reading] == [1, 2, 3]
        assert counts.delta() == (1, 0)
    finally:
        await replica_pool.close()
        await pool.close()
