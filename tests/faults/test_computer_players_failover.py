"""Three computer players and no person, on two instances (issue 53): the instance the game was
made on is killed (SIGKILL) mid-game, and the other plays their seats on to the end; no move is
made twice, and the game's export verifies."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import asyncpg
import httpx

from tests.command_groups import COMMAND_EVENTS
from tests.faults.processes import free_port, serve, stop, wait_healthy

SECRET = "fault-suite-secret-long-enough-for-hs256"


async def moves(database_url: str, game_id: str) -> int:
    conn = await asyncpg.connect(database_url)
    try:
        count: int = await conn.fetchval(
            "SELECT count(*) FROM commands WHERE game_id = $1 AND command_id LIKE 'seat:%:computer-%'",
            game_id,
        )
        return count
    finally:
        await conn.close()


async def test_another_instance_plays_the_computer_seats_of_a_killed_one(
    database_url: str, workdir: Path
) -> None:
    ports = [free_port(), free_port()]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    logs = [workdir / f"instance{n}.log" for n in range(2)]
    env = {"PLAYLOG_JWT_SECRET": SECRET}
    procs = [
        serve(workdir / f"data{n}", ports[n], logs[n], database_url=database_url, extra_env=env)
        for n in range(2)
    ]
    try:
        await asyncio.gather(*(asyncio.to_thread(wait_healthy, urls[n], procs[n], logs[n]) for n in range(2)))
        async with httpx.AsyncClient(base_url=urls[0], timeout=30) as first:
            created = (
                await first.post(
                    "/games",
                    json={
                        "kind": "a_risk_cat",
                        "options": {"players": 3},
                        "public": True,
                        "spectator_delay": 0,
                    },
                )
            ).json()
            game, host = created["game_id"], {"Authorization": f"Bearer {created['host_token']}"}
            for level in ("normal", "easy", "normal"):
                seated = await first.post(
                    f"/games/{game}/computer-players", json={"level": level}, headers=host
                )
                assert seated.status_code == 201, seated.text
            assert (await first.post(f"/games/{game}/start", headers=host)).status_code == 200
        async with asyncio.timeout(60):
            while await moves(database_url, game) < 10:
                await asyncio.sleep(0.05)
        procs[0].kill()  # SIGKILL: no shutdown at all
        await asyncio.to_thread(procs[0].wait)
        before = await moves(database_url, game)
        async with httpx.AsyncClient(base_url=urls[1], timeout=30) as second:
            async with asyncio.timeout(180):
                while (await second.get(f"/games/{game}")).json()["status"] != "finished":
                    await asyncio.sleep(0.2)
            audit = (await second.get(f"/games/{game}/audit/verify")).json()
    finally:
        for proc in procs:
            await asyncio.to_thread(stop, proc, signal.SIGTERM)
    assert await moves(database_url, game) > before  # the survivor went on playing
    assert audit["ok"], audit

    conn = await asyncpg.connect(database_url)
    try:
        # Applied once each: a computer move's events are exactly the run its command recorded.
        runs = await conn.fetch(
            "SELECT command_id, first_seq, last_seq FROM commands"
            " WHERE game_id = $1 AND command_id LIKE 'seat:%:computer-%'",
            game,
        )
        applied = {
            run["command_id"]: await conn.fetch(COMMAND_EVENTS, game, run["command_id"]) for run in runs
        }
    finally:
        await conn.close()
    assert runs
    for run in runs:
        seqs = [row["seq"] for row in applied[run["command_id"]]]
        assert seqs == list(range(run["first_seq"], run["last_seq"] + 1)), run["command_id"]
