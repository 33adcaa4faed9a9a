"""GET /games: the public lobby listing, from the read model, with the spectator delay applied.

The listing is eventually consistent: tests poll it (bounded) until the projector caught up.
"""

from __future__ import annotations

import asyncio
import base64
import time
import uuid
from collections.abc import Awaitable, Callable
from typing import Any

import asyncpg
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.tools.client import CreatedGame, PlaylogClient
from tests.e2e.pages import follow, refused

Listing = list[dict[str, Any]]


async def listing(http: AsyncTestClient[Litestar], **params: Any) -> Listing:
    response = await http.get("/games", params=params)
    assert response.status_code == 200, response.text
    games: Listing = response.json()["games"]
    return games


async def eventually(check: Callable[[], Awaitable[bool]], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not await check():
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s")
        await asyncio.sleep(0.05)


async def projected(pool: asyncpg.Pool, game_id: uuid.UUID, version: int) -> bool:
    """The lobby row of the game (public or not) has caught up with ``version``."""
    found = await pool.fetchval("SELECT version FROM lobby_games WHERE game_id = $1", game_id)
    return found is not None and found >= version


async def ids(http: AsyncTestClient[Litestar], **params: Any) -> set[str]:
    return {g["game_id"] for g in await listing(http, **params)}


async def full_game(api: PlaylogClient, delay: float, names: tuple[str, str] = ("ann", "ben")) -> CreatedGame:
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=delay)
    for name in names:
        await api.join(created.game_id, name)
    return created


async def finished_game(api: PlaylogClient, delay: float) -> tuple[CreatedGame, int]:
    """A started game in which seat 0 concedes: seat 1 wins. Returns the game and its version."""
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=delay)
    seats = [await api.join(created.game_id, name) for name in ("ann", "ben")]
    await api.start(created.game_id, created.host_token)
    summary = await api.leave(created.game_id, 0, seats[0].token)
    assert summary.status == "finished" and summary.winners == [1]
    return created, summary.version


async def test_listing_filters_by_status_and_kind_and_hides_private_games(
    api: PlaylogClient, http: AsyncTestClient[Litestar], pool: asyncpg.Pool
) -> None:
    open_ek = await api.create_game("exploding_kittens", {"players": 3}, spectator_delay=0)
    await api.join(open_ek.game_id, "ann")
    open_cat = await api.create_game("a_risk_cat", {"players": 3}, spectator_delay=0)
    private = await api.create_game("exploding_kittens", {"players": 2}, public=False, spectator_delay=0)
    running = await full_game(api, delay=0)
    started = await api.start(running.game_id, running.host_token)
    finished, finished_version = await finished_game(api, delay=0)

    await eventually(lambda: projected(pool, private.game_id, 1))
    await eventually(lambda: projected(pool, running.game_id, started.version))
    await eventually(lambda: projected(pool, finished.game_id, finished_version))
    await eventually(lambda: projected(pool, open_ek.game_id, 2))

    assert await ids(http, status="open") == {str(open_ek.game_id), str(open_cat.game_id)}
    assert await ids(http, status="running") == {str(running.game_id)}
    assert await ids(http, status="finished") == {str(finished.game_id)}
    assert await ids(http, kind="a_risk_cat") == {str(open_cat.game_id)}
    assert await ids(http, kind="exploding_kittens", status="open") == {str(open_ek.game_id)}
    everything = await listing(http)
    assert str(private.game_id) not in {g["game_id"] for g in everything}
    assert len(everything) == 4

    by_id = {g["game_id"]: g for g in everything}
    ek = by_id[str(open_ek.game_id)]
    assert ek["seats"] == ["ann", None, None]
    assert (ek["seats_taken"], ek["seats_total"]) == (1, 3)
    assert ek["started_at"] is None and ek["winners"] is None
    done = by_id[str(finished.game_id)]
    assert done["status"] == "finished" and done["winners"] == [1]
    assert done["created_at"] <= done["started_at"] <= done["finished_at"]
    assert by_id[str(running.game_id)]["winners"] is None
    # Newest first, and paginated.
    assert everything[0]["game_id"] == str(finished.game_id)
    pages = await follow(http, "/games?limit=3", lambda body: body["games"])
    assert [len(p) for p in pages] == [3, 1]
    assert [g["game_id"] for p in pages for g in p] == [g["game_id"] for g in everything]


async def test_paging_the_listing_to_its_end_yields_every_game_once_while_games_are_created(
    api: PlaylogClient, http: AsyncTestClient[Litestar], pool: asyncpg.Pool
) -> None:
    before = [await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0) for _ in range(7)]
    await eventually(lambda: projected(pool, before[-1].game_id, 1))
    added: list[CreatedGame] = []

    async def create_one() -> None:
        added.append(await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0))
        await eventually(lambda: projected(pool, added[-1].game_id, 1))

    first = "/games?limit=2&kind=exploding_kittens"
    pages = await follow(http, first, lambda b: b["games"], between=create_one)
    seen = [g["game_id"] for p in pages for g in p]
    assert len(seen) == len(set(seen)), "a game shown twice"
    assert seen == [str(g.game_id) for g in reversed(before)]  # newest first; the new ones on a new read
    assert [len(p) for p in pages] == [2, 2, 2, 1]
    fresh = await listing(http, limit=200)
    assert [g["game_id"] for g in fresh][: len(added)] == [str(g.game_id) for g in reversed(added)]


async def test_the_deprecated_offset_still_pages_and_links_to_the_keyset(
    api: PlaylogClient, http: AsyncTestClient[Litestar], pool: asyncpg.Pool
) -> None:
    made = [await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0) for _ in range(4)]
    await eventually(lambda: projected(pool, made[-1].game_id, 1))
    response = await http.get("/games", params={"limit": 2, "offset": 1})
    body = response.json()
    assert [g["game_id"] for g in body["games"]] == [str(made[2].game_id), str(made[1].game_id)]
    assert (body["limit"], body["offset"]) == (2, 1)
    assert body["next"] is not None and "offset" not in body["next"]
    rest = await follow(http, body["next"], lambda b: b["games"])
    assert [g["game_id"] for p in rest for g in p] == [str(made[0].game_id)]
    await refused(http, body["next"] + "&offset=1", "invalid_offset")


async def test_a_bad_limit_or_cursor_is_refused_with_its_code(
    api: PlaylogClient, http: AsyncTestClient[Litestar], pool: asyncpg.Pool
) -> None:
    for limit in ("0", "201", "-1", "many"):
        await refused(http, f"/games?limit={limit}", "invalid_limit")
    key = f'["disputes","2026-12-01T00:00:00Z","{uuid.uuid4()}"]'
    foreign = base64.urlsafe_b64encode(key.encode())
    for cursor in ("abc", "not%20a%20cursor", "x" * 401, foreign.decode().rstrip("="), "W10"):
        await refused(http, f"/games?cursor={cursor}", "invalid_cursor")


async def test_listing_shows_a_game_as_started_or_finished_only_after_the_spectator_delay(
    api: PlaylogClient, http: AsyncTestClient[Litestar], pool: asyncpg.Pool
) -> None:
    hidden, hidden_version = await finished_game(api, delay=3600)
    soon = await full_game(api, delay=1)
    started = await api.start(soon.game_id, soon.host_token)
    await eventually(lambda: projected(pool, hidden.game_id, hidden_version))
    row = await pool.fetchrow("SELECT status, winners FROM lobby_games WHERE game_id = $1", hidden.game_id)
    assert (row["status"], row["winners"]) == ("finished", [1])

    # Finished for an hour-delayed spectator is still the lobby they last saw: open, no winners.
    shown = {g["game_id"]: g for g in await listing(http)}[str(hidden.game_id)]
    assert shown["status"] == "open"
    assert shown["winners"] is None and shown["started_at"] is None and shown["finished_at"] is None
    assert str(hidden.game_id) in await ids(http, status="open")
    assert str(hidden.game_id) not in await ids(http, status="running") | await ids(http, status="finished")

    # A one-second delay passes: the game shows as running (polled, not timed).
    await eventually(lambda: projected(pool, soon.game_id, started.version))

    async def soon_running() -> bool:
        return str(soon.game_id) in await ids(http, status="running")

    await eventually(soon_running)


async def test_bad_listing_parameters_are_problem_json_400(http: AsyncTestClient[Litestar]) -> None:
    cases: list[tuple[dict[str, str | int], str]] = [
        ({"status": "paused"}, "invalid_status"),
        ({"limit": -1}, "invalid_limit"),
        ({"limit": 100_000}, "invalid_limit"),
        ({"offset": -5}, "invalid_offset"),
        ({"limit": 0}, "invalid_limit"),
        ({"limit": "many"}, "invalid_limit"),
    ]
    for params, code in cases:
        response = await http.get("/games", params=params)
        assert response.status_code == 400, (params, response.text)
        assert response.headers["content-type"].startswith("application/problem+json")
        assert response.json()["code"] == code, response.json()
