"""PostgreSQL stopped and started again under a bot load on two instances, none restarted.

While the database is away every route that needs it answers 503 ``database_unavailable`` with
Retry-After (never 500), ``/readyz`` 503 and ``/healthz`` 200. Once it is back, the instances
recover on their own: nothing lost or duplicated, every game finishes, and each instance sees
what the other appends (notifications and read models flow again).
"""

from __future__ import annotations

import asyncio
import signal
import uuid
from pathlib import Path

import httpx

from tests.faults.conftest import OwnPostgres
from tests.faults.load import Load, check_games, events_in_log, wait_for_events
from tests.faults.processes import free_port, logged_errors, serve, stop, wait_healthy

SECRET = "fault-suite-secret-long-enough-for-hs256"
FRESH_BOUND = 60.0  # generous: what must not happen is that views stay stale for good


async def _probe_while_down(http: httpx.AsyncClient, url: str) -> None:
    assert (await http.get(f"{url}/healthz")).status_code == 200
    for response in (
        await http.get(f"{url}/readyz"),
        await http.post(f"{url}/games", json={"kind": "exploding_kittens", "options": {"players": 2}}),
        await http.get(f"{url}/games/{uuid.uuid4()}/audit/verify"),
        await http.get(f"{url}/games"),
    ):
        assert response.status_code == 503, response.text
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.json()["code"] == "database_unavailable"
        assert int(response.headers["retry-after"]) > 0


async def _until(check: object, bound: float = FRESH_BOUND) -> None:
    async with asyncio.timeout(bound):
        while not await check():  # type: ignore[operator]
            await asyncio.sleep(0.1)


async def _views_cross_instances(http: httpx.AsyncClient, a: str, b: str) -> None:
    """A game created and played on ``a`` is seen on ``b``: its seat view (a cache kept fresh by
    the notifications of ``a``) and the lobby list (the read models, projected by either)."""
    created = (
        await http.post(f"{a}/games", json={"kind": "exploding_kittens", "options": {"players": 2}})
    ).json()
    game = created["game_id"]
    seats = [(await http.post(f"{a}/games/{game}/seats", json={"name": n})).json() for n in ("x", "y")]
    host = {"Authorization": f"Bearer {created['host_token']}"}
    assert (await http.post(f"{a}/games/{game}/start", headers=host)).status_code == 200
    auth = [{"Authorization": f"Bearer {seat['token']}"} for seat in seats]
    before = (await http.get(f"{b}/games/{game}/seats/0/view", headers=auth[0])).json()  # cached on b
    view = before["view"]
    active = view["public"]["active_seat"]
    mine = (await http.get(f"{a}/games/{game}/seats/{active}/view", headers=auth[active])).json()
    command = mine["view"]["legal_commands"][0]
    sent = await http.post(
        f"{a}/games/{game}/seats/{active}/commands",
        json=command,
        headers={**auth[active], "Idempotency-Key": uuid.uuid4().hex},
    )
    assert sent.status_code == 200, sent.text
    version = sent.json()["version"]

    async def b_view_is_fresh() -> bool:
        seen = await http.get(f"{b}/games/{game}/seats/0/view", headers=auth[0])
        return bool(seen.status_code == 200 and seen.json()["version"] >= version)

    async def b_lists_it() -> bool:
        listing = await http.get(f"{b}/games", params={"limit": 200})
        return listing.status_code == 200 and any(g["game_id"] == game for g in listing.json()["games"])

    await _until(b_view_is_fresh)
    await _until(b_lists_it)


async def test_a_database_restart_mid_load_is_survived_without_restarting_any_instance(
    own_postgres: OwnPostgres, workdir: Path
) -> None:
    ports = [free_port(), free_port()]
    urls = [f"http://127.0.0.1:{port}" for port in ports]
    logs = [workdir / f"instance{n}.log" for n in range(2)]
    env = {"PLAYLOG_JWT_SECRET": SECRET}
    url = own_postgres.url
    procs = [
        serve(workdir / f"data{n}", ports[n], logs[n], database_url=url, extra_env=env) for n in range(2)
    ]
    try:
        await asyncio.gather(*(asyncio.to_thread(wait_healthy, urls[n], procs[n], logs[n]) for n in range(2)))
        async with httpx.AsyncClient(timeout=30) as http:
            await _views_cross_instances(http, urls[0], urls[1])  # as it should be, before
            load = Load(urls, games=4, seed=100)
            playing = asyncio.create_task(load.run())
            await wait_for_events(url, 80)
            await asyncio.to_thread(own_postgres.stop)
            for instance in urls:
                await _probe_while_down(http, instance)
            await asyncio.sleep(1.0)  # the load meets the outage too
            await asyncio.to_thread(own_postgres.start)
            await wait_for_events(url, await events_in_log(url) + 40)
            await asyncio.to_thread(own_postgres.restart)  # and once more, the quick way
            await playing
            for a, b in ((urls[0], urls[1]), (urls[1], urls[0])):
                await _views_cross_instances(http, a, b)
    finally:
        for proc in procs:
            await asyncio.to_thread(stop, proc, signal.SIGTERM)
    assert all(proc.returncode == 0 for proc in procs)
    await check_games(url, load)
    assert [logged_errors(log) for log in logs] == [[], []]  # warnings only: nothing unexpected
    assert load.statuses[503] > 0  # the outage did hit the load, and was answered 503
    assert not [status for status in load.statuses if status >= 500 and status != 503], load.statuses
