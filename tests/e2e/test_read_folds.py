"""No read refolds a game from its first event when the one cache holds it (issue 51): the
spectators' head, their snapshot and a game's summary as spectators see it fold on from what is
kept (the spectators' state is folded forward as events are released), and the audit's pages
fold from the cache's table at the asked seq, only as far as the page reaches.

Counted over the real app with a profiler hook around each request: every event folded into a
table passes through ``domain.table.state.evolve``; no function is replaced.
"""

from __future__ import annotations

import asyncio
import random
import sys
import uuid
from collections.abc import Awaitable, Callable
from types import FrameType
from typing import Any

import httpx
from litestar import Litestar
from litestar.testing import AsyncTestClient

from domain.table import state as table_state
from service.http.fast.edge import Edge
from service.tools.bot import play_game
from service.tools.client import PlaylogClient

SPECTATOR_DELAY = 0.2  # seconds: the delayed game's events are all released once it has passed


async def folds(http: AsyncTestClient[Litestar], request: Callable[[], Awaitable[httpx.Response]]) -> int:
    """How many events ``request`` folds into a table, in the task that serves it (the one the
    app's edge layer starts in), not in the app's background tasks (the projector, feeds)."""
    count = 0
    serving: list[asyncio.Task[Any] | None] = []
    frames: set[int] = set()
    seen: list[FrameType] = []  # kept alive, so that no frame's id is reused meanwhile

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event != "call":
            return
        if not serving:
            if frame.f_code is not Edge.__call__.__code__:
                return
            serving.append(asyncio.current_task())
        code, task = frame.f_code, asyncio.current_task()
        if code is table_state.evolve.__code__ and task is serving[0] and id(frame) not in frames:
            frames.add(id(frame))
            seen.append(frame)
            count += 1

    portal = http.blocking_portal
    portal.call(sys.setprofile, profile)
    try:
        response = await request()
    finally:
        portal.call(sys.setprofile, None)
    assert response.status_code == 200, response.text
    return count


def cached_version(http: AsyncTestClient[Litestar], game_id: uuid.UUID) -> int:
    latest = http.app.state.games.tables.latest(game_id)
    assert latest is not None, "the cache holds the game"
    version: int = latest.version
    return version


async def test_the_spectators_reads_fold_nothing_the_cache_holds(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    report = await play_game(
        api, "exploding_kittens", {"players": 2, "reaction_window": 0}, rng=random.Random(3)
    )
    game_id = report.game_id
    assert cached_version(http, game_id) > 10
    for path in (f"/games/{game_id}/spectate/head", f"/games/{game_id}/spectate", f"/games/{game_id}"):
        for _ in range(2):
            assert await folds(http, lambda path=path: http.get(path)) == 0, path


async def test_a_delayed_game_s_spectators_fold_on_from_what_they_saw(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    created = await api.create_game(
        "exploding_kittens", {"players": 2, "reaction_window": 0}, spectator_delay=SPECTATOR_DELAY
    )
    for n in range(created.seats):
        await api.join(created.game_id, f"p{n}")
    await api.start(created.game_id, created.host_token)
    game_id = created.game_id
    version = cached_version(http, game_id)
    await asyncio.sleep(SPECTATOR_DELAY * 2)  # every event so far released: none left to wait for
    for path in (f"/games/{game_id}/spectate", f"/games/{game_id}", f"/games/{game_id}/spectate/head"):
        assert await folds(http, lambda path=path: http.get(path)) == 0, path
    assert (await http.get(f"/games/{game_id}/spectate")).json()["status"] == "running"
    assert cached_version(http, game_id) == version


async def test_the_audit_pages_fold_only_as_far_as_the_page_reaches(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    report = await play_game(
        api, "exploding_kittens", {"players": 3, "reaction_window": 0}, rng=random.Random(3)
    )
    game_id = report.game_id
    events = cached_version(http, game_id)
    assert events > 20
    audit = f"/games/{game_id}/audit"
    # The whole game as one document, from the cached table: nothing folded again.
    assert await folds(http, lambda: http.get(f"{audit}/transcript")) == 0
    assert await folds(http, lambda: http.get(f"{audit}/state")) == 0
    seat = {"Authorization": f"Bearer {report.tokens[0]}"}
    assert await folds(http, lambda: http.get(f"/games/{game_id}/seats/0/transcript", headers=seat)) == 0
    # At a seq: folded from the cache's table not past it, never further than that seq.
    assert await folds(http, lambda: http.get(f"{audit}/state", params={"at": 5})) <= 5
    # A page: folded to the seq before it, then over its events, never the whole game.
    for path in ("log", "diffs"):
        for after, limit in ((0, 5), (10, 5)):
            counted = await folds(
                http,
                lambda path=path, after=after, limit=limit: http.get(
                    f"{audit}/{path}", params={"after": after, "limit": limit}
                ),
            )
            assert counted <= after + limit < events, (path, after, counted)
