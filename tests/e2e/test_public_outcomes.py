"""A finished game's result reaches the public only after the spectator delay (issue 34).

The listing, a player's statistics and the anonymous summary show the game's end and each ruling
that changed its result a spectator delay after it happened (projections/spectator.py); the
game's seats, their players and moderators see them at once. Read models follow the log about a
second behind: the tests wait (bounded) for the projector to hold what they check.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import asyncpg
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.config import Settings
from service.tools.client import PlaylogClient
from tests.e2e.test_disputes import Finished, claim, moderator_headers, raise_dispute, resolve
from tests.e2e.test_listing import eventually, projected

LONG = 30.0  # longer than the test takes: nothing may show in it
SHORT = 8.0  # short enough to wait for, long enough to check a read model within it


@dataclass
class Game(Finished):
    """A finished 2-seat game of two players: ann (seat 0) conceded, ben (seat 1) won."""

    tokens: list[str]  # the players' tokens


async def finished(api: PlaylogClient, delay: float) -> Game:
    players = [await api.create_player(name) for name in ("ann", "ben")]
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=delay)
    seats = [await api.join(created.game_id, player_token=p.token) for p in players]
    await api.start(created.game_id, created.host_token)
    summary = await api.leave(created.game_id, 0, seats[0].token)
    assert summary.winners == [1]
    ids = [p.player_id for p in players]
    return Game(created.game_id, seats, summary.version, ids, [p.token for p in players])


async def award_to_seat_0(http: AsyncTestClient[Litestar], game: Game, settings: Settings) -> dict[str, Any]:
    """Ann disputes; a moderator upholds it and awards her the win. Returns the dispute."""
    mod = moderator_headers(settings)
    raised = await raise_dispute(http, game, seat=0)
    await claim(http, raised["dispute_id"], mod)
    response = await resolve(http, raised["dispute_id"], mod, verdict="upheld", action="award", seats=[0])
    assert response.status_code == 200, response.text
    ruled: dict[str, Any] = response.json()
    return ruled


async def public_reads(http: AsyncTestClient[Litestar], game: Game) -> dict[str, Any]:
    """What anyone, with no token, reads of the game and its players now."""
    everything = (await http.get("/games", params={"limit": 200})).json()["games"]
    # Not listed at all until the projector has the game: a read model follows the log.
    listed = next((g for g in everything if g["game_id"] == str(game.game_id)), None)
    finished_ones = (await http.get("/games", params={"status": "finished", "limit": 200})).json()["games"]
    summary = (await http.get(f"/games/{game.game_id}")).json()
    stats = [(await http.get(f"/players/{player}")).json()["stats"] for player in game.players]
    return {
        "listed": listed and (listed["status"], listed.get("winners"), listed.get("ruled_outcome")),
        "listed_finished": str(game.game_id) in {g["game_id"] for g in finished_ones},
        "summary": (summary["status"], summary.get("winners"), summary.get("ruled_outcome")),
        "stats": [[(s["played"], s["won"], s["penalties"]) for s in kinds] for kinds in stats],
    }


NOTHING_YET = {
    "listed": ("open", None, None),  # it started less than a delay ago
    "listed_finished": False,
    "summary": ("open", None, None),
    "stats": [[], []],
}


async def not_released(pool: asyncpg.Pool, game: Game) -> bool:
    """The game's end was recorded less than its delay ago (so the checks below are meaningful)."""
    return bool(
        await pool.fetchval(
            "SELECT finished_at + make_interval(secs => spectator_delay) > now() FROM lobby_games"
            " WHERE game_id = $1",
            game.game_id,
        )
    )


async def test_a_long_delay_hides_the_end_and_the_ruling_from_every_public_read(
    api: PlaylogClient, http: AsyncTestClient[Litestar], pool: asyncpg.Pool, settings: Settings
) -> None:
    game = await finished(api, LONG)
    # The read models hold the game's end: a public read could show it.
    await eventually(lambda: projected(pool, game.game_id, game.version))
    assert await public_reads(http, game) == NOTHING_YET

    ruled = await award_to_seat_0(http, game, settings)
    await eventually(lambda: projected(pool, game.game_id, ruled["history"][-1]["seq"]))
    assert await not_released(pool, game)
    assert await public_reads(http, game) == NOTHING_YET
    spectators = (await http.get(f"/games/{game.game_id}/disputes")).json()["items"]
    assert spectators == []  # the dispute's raise is not released either

    # Its seats and their players see it all live; so do moderators.
    for seat in (0, 1):
        view = (await http.get(f"/games/{game.game_id}/seats/{seat}/view", headers=game.seat(seat))).json()
        assert (view["status"], view["winners"], view["ruled_outcome"]) == ("finished", [1], {"winners": [0]})
        summary = (await http.get(f"/games/{game.game_id}", headers=game.seat(seat))).json()
        assert (summary["status"], summary["ruled_outcome"]) == ("finished", {"winners": [0]})
    mine = [(await api.my_games(token)).games[0] for token in game.tokens]
    assert [(g.status, g.outcome) for g in mine] == [("finished", "won"), ("finished", "lost")]
    mod = moderator_headers(settings)
    summary = (await http.get(f"/games/{game.game_id}", headers=mod)).json()
    assert (summary["winners"], summary["ruled_outcome"]) == ([1], {"winners": [0]})
    detail = (await http.get(f"/moderation/disputes/{ruled['dispute_id']}", headers=mod)).json()
    assert detail["game"]["outcome"] == {"winners": [1]}
    assert await not_released(pool, game)  # all of the above within the delay


async def test_the_end_and_then_a_later_ruling_show_once_each_ones_delay_has_passed(
    api: PlaylogClient, http: AsyncTestClient[Litestar], pool: asyncpg.Pool, settings: Settings
) -> None:
    """The issue's case: a ruling made after the game's end was released stays hidden for a delay
    of its own, while the end's result shows."""
    game = await finished(api, SHORT)
    seen: list[tuple[float, dict[str, Any]]] = []  # each public read, with when it was answered

    def showing(*, listed: bool, stats: list[list[tuple[int, int, int]]]) -> Callable[[], Awaitable[bool]]:
        async def check() -> bool:
            reads = await public_reads(http, game)
            seen.append((time.time(), reads))
            return (
                bool(reads["listed"])
                and reads["listed"][0] == "finished"  # the listing's row, folded apart from the stats
                and (reads["listed"][2] is not None) == listed
                and reads["stats"] == stats
            )

        return check

    await eventually(showing(listed=False, stats=[[(1, 0, 0)], [(1, 1, 0)]]))
    _, reads = seen[-1]
    assert reads == {
        "listed": ("finished", [1], None),
        "listed_finished": True,
        "summary": ("finished", [1], None),
        "stats": [[(1, 0, 0)], [(1, 1, 0)]],
    }
    listing = (await http.get("/games")).json()["games"]
    ended_at = next(g["finished_at"] for g in listing if g["game_id"] == str(game.game_id))

    ruled = await award_to_seat_0(http, game, settings)
    ruled_at = ruled["verdict"]["at"]
    await eventually(lambda: projected(pool, game.game_id, ruled["history"][-1]["seq"]))
    now = await public_reads(http, game)
    seen.append((time.time(), now))  # checked below against the ruling's release, however slow
    if seen[-1][0] < ruled_at + SHORT:
        assert now == reads  # the end's result, not the ruling's

    await eventually(showing(listed=True, stats=[[(1, 1, 0)], [(1, 0, 0)]]))  # ann's win is the ruling's
    assert seen[-1][1] == {
        "listed": ("finished", [1], {"winners": [0]}),
        "listed_finished": True,
        "summary": ("finished", [1], {"winners": [0]}),
        "stats": [[(1, 1, 0)], [(1, 0, 0)]],
    }
    # Nothing showed before its time: the end a delay after it, the ruling a delay after it.
    for answered, shown in seen:
        if shown["listed_finished"] or shown["stats"] != [[], []] or shown["summary"][0] == "finished":
            assert answered >= ended_at + SHORT, shown
        if (
            (shown["listed"] and shown["listed"][2] is not None)
            or shown["summary"][2] is not None
            or shown["stats"][0] == [(1, 1, 0)]
        ):
            assert answered >= ruled_at + SHORT, shown
