"""Webhook messages survive a killed instance and a restart (issue 54): two ``playlog serve``
processes deliver from one queue while a game is played; the receiver fails for a while (a
backlog waits in the database), one instance is killed with SIGKILL (failover) and the other is
stopped and started again (restart). Every message queued reaches the receiver, and a message
that comes twice comes with the same delivery id."""

from __future__ import annotations

import asyncio
import random
import signal
from pathlib import Path
from typing import Any

import asyncpg
import httpx

from tests.faults.processes import free_port, serve, stop, wait_healthy
from tests.webhook_receiver import Receiver

SECRET = "fault-suite-secret-long-enough-for-hs256"
ENV = {
    "PLAYLOG_JWT_SECRET": SECRET,
    "PLAYLOG_WEBHOOK_ALLOW_PRIVATE": "on",
    "PLAYLOG_WEBHOOK_INTERVAL": "0.05",
    "PLAYLOG_WEBHOOK_TIMEOUT": "2",
}


class Table:
    """A two-seat game of players, played with random legal moves through one instance or another."""

    def __init__(self, game: str, seats: list[dict[str, Any]]) -> None:
        self.game, self.seats = game, seats
        self.rng = random.Random(54)
        self.finished = False

    async def play(self, url: str, moves: int) -> None:
        async with httpx.AsyncClient(base_url=url, timeout=30) as http:
            made = 0
            while made < moves and not self.finished:
                views = []
                for n, seat in enumerate(self.seats):
                    got = await http.get(f"/games/{self.game}/seats/{n}/view", headers=_bearer(seat["token"]))
                    views.append(got.json())
                if views[0]["status"] == "finished":
                    self.finished = True
                    break
                movers = [n for n, view in enumerate(views) if view["moves"]]
                if not movers:
                    await asyncio.sleep(0.05)
                    continue
                n = self.rng.choice(movers)
                sent = await http.post(
                    f"/games/{self.game}/seats/{n}/commands",
                    json=self.rng.choice(views[n]["moves"]),
                    headers=_bearer(self.seats[n]["token"]),
                )
                made += sent.status_code < 300


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def queued(database_url: str) -> tuple[set[str], int]:
    """Every delivery id queued, and how many are not delivered yet."""
    conn = await asyncpg.connect(database_url)
    try:
        rows = await conn.fetch("SELECT delivery_id, delivered_at, gave_up_at FROM webhook_deliveries")
    finally:
        await conn.close()
    assert all(row["gave_up_at"] is None for row in rows)
    return {str(row["delivery_id"]) for row in rows}, sum(row["delivered_at"] is None for row in rows)


async def test_messages_survive_a_killed_instance_and_a_restart(database_url: str, workdir: Path) -> None:
    ports = [free_port(), free_port()]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    logs = [workdir / f"instance{n}.log" for n in range(2)]

    def start(n: int) -> Any:
        return serve(workdir / f"data{n}", ports[n], logs[n], database_url=database_url, extra_env=ENV)

    procs = [start(0), start(1)]
    with Receiver(status=503) as receiver:
        try:
            await asyncio.gather(
                *(asyncio.to_thread(wait_healthy, urls[n], procs[n], logs[n]) for n in range(2))
            )
            async with httpx.AsyncClient(base_url=urls[0], timeout=30) as http:
                players = [(await http.post("/players", json={"name": f"p{n}"})).json() for n in range(2)]
                for n, player in enumerate(players):
                    made = await http.post(
                        "/players/me/webhooks",
                        json={"url": receiver.url(f"/p{n}")},
                        headers=_bearer(player["token"]),
                    )
                    assert made.status_code == 201, made.text
                created = (
                    await http.post(
                        "/games",
                        json={"kind": "exploding_kittens", "options": {"players": 2, "reaction_window": 0}},
                    )
                ).json()
                game = created["game_id"]
                seats = [
                    (await http.post(f"/games/{game}/seats", json={}, headers=_bearer(p["token"]))).json()
                    for p in players
                ]
                started = await http.post(f"/games/{game}/start", headers=_bearer(created["host_token"]))
                assert started.status_code == 200, started.text
            table = Table(game, seats)

            # A backlog while the receiver fails, then delivery resumes and the first instance dies.
            await table.play(urls[0], 8)
            async with asyncio.timeout(60):
                while not (await queued(database_url))[0]:
                    await asyncio.sleep(0.1)
            receiver.status = 204
            async with asyncio.timeout(60):
                while not receiver.received:
                    await asyncio.sleep(0.02)
            procs[0].kill()  # SIGKILL: whatever it had claimed is left to the other
            await asyncio.to_thread(procs[0].wait)

            # The survivor goes on; a new backlog, then it restarts.
            await table.play(urls[1], 8)
            receiver.status = 503
            await table.play(urls[1], 4)
            await asyncio.sleep(1.5)  # the projector queues what was played
            await asyncio.to_thread(stop, procs[1], signal.SIGTERM)
            receiver.status = 204
            procs[1] = start(1)
            await asyncio.to_thread(wait_healthy, urls[1], procs[1], logs[1])
            await table.play(urls[1], 10_000)
            assert table.finished
            async with asyncio.timeout(120):
                while True:
                    ids, pending = await queued(database_url)
                    over = {m.path for m in receiver.received if m.json()["event"] == "game_over"}
                    if not pending and over == {"/p0", "/p1"}:
                        break
                    await asyncio.sleep(0.2)
            messages = list(receiver.received)
        finally:
            for proc in procs:
                await asyncio.to_thread(stop, proc, signal.SIGTERM)
    received = {m.headers["playlog-delivery"] for m in messages}
    assert received == ids  # none lost, none made up
    by_message: dict[tuple[str, int, int], set[str]] = {}
    for m in messages:
        body = m.json()
        by_message.setdefault((body["event"], body["seat"], body["version"]), set()).add(body["delivery_id"])
    assert all(len(same) == 1 for same in by_message.values())  # a repeat is the same id
