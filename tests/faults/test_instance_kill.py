"""Two instances on one database under a bot load; one is killed (SIGKILL) and started again."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

from tests.faults.load import Load, check_games, wait_for_events
from tests.faults.processes import free_port, logged_errors, serve, stop, wait_healthy

SECRET = "fault-suite-secret-long-enough-for-hs256"


async def test_killing_an_instance_mid_load_loses_nothing_duplicates_nothing_and_every_game_ends(
    database_url: str, workdir: Path
) -> None:
    ports = [free_port(), free_port()]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    logs = [workdir / f"instance{n}.log" for n in range(2)]
    env = {"PLAYLOG_JWT_SECRET": SECRET}  # both instances accept the tokens either one issued
    procs = [
        serve(workdir / f"data{n}", ports[n], logs[n], database_url=database_url, extra_env=env)
        for n in range(2)
    ]
    try:
        await asyncio.gather(*(asyncio.to_thread(wait_healthy, urls[n], procs[n], logs[n]) for n in range(2)))
        load = Load(urls, games=4)
        playing = asyncio.create_task(load.run())
        await wait_for_events(database_url, 80)
        procs[0].kill()  # SIGKILL: no shutdown at all, requests in flight cut off
        await asyncio.to_thread(procs[0].wait)
        procs[0] = serve(workdir / "data0", ports[0], logs[0], database_url=database_url, extra_env=env)
        await asyncio.to_thread(wait_healthy, urls[0], procs[0], logs[0])
        await playing
    finally:
        for proc in procs:
            await asyncio.to_thread(stop, proc, signal.SIGTERM)
    await check_games(database_url, load)
    assert [logged_errors(log) for log in logs] == [[], []]  # warnings only: nothing unexpected
    assert load.retries > 0  # the kill did hit the load: requests were sent again
    assert load.statuses[500] == 0, load.statuses
