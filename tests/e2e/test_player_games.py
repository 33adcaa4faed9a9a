"""A player's games and transcripts attach to its id: listed with its token, read after the seat
token has expired, refused to a player who did not hold the seat.

The list is a read model (eventually consistent): tests wait (bounded) until it caught up.
"""

from __future__ import annotations

import dataclasses
import uuid

import asyncpg
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.config import Settings
from service.http.app import create_app
from service.tools.client import CreatedPlayer, JoinedSeat, PlaylogClient
from tests.e2e.pages import follow, refused
from tests.e2e.test_listing import eventually, projected


async def test_paging_a_players_games_to_the_end_yields_each_once_while_it_joins_more(
    api: PlaylogClient, http: AsyncTestClient[Litestar], pool: asyncpg.Pool
) -> None:
    pat = await api.create_player("pat")

    async def join_one() -> uuid.UUID:
        created = await api.create_game("exploding_kittens", {"players": 2})
        await api.join(created.game_id, player_token=pat.token)
        await eventually(lambda: projected(pool, created.game_id, 2))
        return created.game_id

    before = [await join_one() for _ in range(5)]
    added: list[uuid.UUID] = []

    async def between() -> None:
        added.append(await join_one())

    pages = await follow(
        http, "/players/me/games?limit=2", lambda b: b["games"], headers=bearer(pat.token), between=between
    )
    assert [g["game_id"] for p in pages for g in p] == [str(g) for g in reversed(before)]
    everything = [g.game_id for g in await api.all_my_games(pat.token, limit=3)]
    assert everything == [*reversed(added), *reversed(before)]
    for url, code in (
        ("/players/me/games?limit=0", "invalid_limit"),
        ("/players/me/games?limit=201", "invalid_limit"),
        ("/players/me/games?cursor=Zm9v", "invalid_cursor"),
        ("/players/me/games?offset=2&cursor=WyJwbGF5ZXJfZ2FtZXMiXQ", "invalid_offset"),
    ):
        await refused(http, url, code, headers=bearer(pat.token))
    # A cursor of another list is not this list's.
    listed = (await http.get("/games?limit=1")).json()["next"]
    assert listed is not None
    foreign = listed.split("cursor=")[1]
    await refused(http, f"/players/me/games?cursor={foreign}", "invalid_cursor", headers=bearer(pat.token))


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclasses.dataclass
class Finished:
    game_id: uuid.UUID
    version: int
    seats: list[JoinedSeat]


async def finished_game(
    api: PlaylogClient, winner: CreatedPlayer, loser: CreatedPlayer, delay: float | None = None
) -> Finished:
    """A two-seat game: ``winner`` in seat 0, ``loser`` in seat 1 concedes."""
    created = await api.create_game(
        "exploding_kittens", {"players": 2, "reaction_window": 0}, spectator_delay=delay
    )
    seats = [await api.join(created.game_id, player_token=p.token) for p in (winner, loser)]
    await api.start(created.game_id, created.host_token)
    summary = await api.leave(created.game_id, 1, seats[1].token)
    assert summary.status == "finished" and summary.winners == [0]
    return Finished(created.game_id, summary.version, seats)


async def test_a_player_lists_the_games_it_holds_a_seat_in_newest_first(
    api: PlaylogClient, pool: asyncpg.Pool
) -> None:
    pat, sam = await api.create_player("pat"), await api.create_player("sam")
    won = (await finished_game(api, pat, sam)).game_id
    lost = (await finished_game(api, sam, pat)).game_id
    waiting = await api.create_game("exploding_kittens", {"players": 3})
    await api.join(waiting.game_id, "guest")
    seat = await api.join(waiting.game_id, player_token=pat.token)
    left = await api.create_game("exploding_kittens", {"players": 2})
    gone = await api.join(left.game_id, player_token=pat.token)
    await api.leave(left.game_id, 0, gone.token)  # an open game left: not pat's any more
    await eventually(lambda: projected(pool, left.game_id, 3))

    mine = await api.my_games(pat.token)
    assert [(g.game_id, g.kind, g.seats, g.status, g.outcome) for g in mine.games] == [
        (waiting.game_id, "exploding_kittens", [seat.seat], "open", None),
        (lost, "exploding_kittens", [1], "finished", "lost"),
        (won, "exploding_kittens", [0], "finished", "won"),
    ]
    first = await api.my_games(pat.token, limit=1)
    assert ([g.game_id for g in first.games], first.limit) == ([waiting.game_id], 1)
    assert first.next is not None
    second = await api.my_games(pat.token, page=first.next)
    assert [g.game_id for g in second.games] == [lost]
    assert [g.game_id for g in await api.all_my_games(pat.token, limit=1)] == [g.game_id for g in mine.games]
    assert [g.outcome for g in (await api.my_games(sam.token)).games] == ["won", "lost"]


async def test_only_a_player_token_lists_games(api: PlaylogClient, http: AsyncTestClient[Litestar]) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2})
    seat = await api.join(created.game_id, "guest")
    for headers, status, code in (
        ({}, 401, "unauthorized"),
        (bearer(seat.token), 403, "forbidden"),
        (bearer(created.host_token), 403, "forbidden"),
    ):
        response = await http.get("/players/me/games", headers=headers)
        assert (response.status_code, response.json()["code"]) == (status, code)


async def test_a_player_reads_its_seats_transcript_after_the_seat_token_expired(
    api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings
) -> None:
    pat, sam = await api.create_player("pat"), await api.create_player("sam")
    game = await finished_game(api, pat, sam)
    game_id, seat_token = game.game_id, game.seats[0].token
    by_seat = await http.get(f"/games/{game_id}/seats/0/transcript", headers=bearer(seat_token))
    assert by_seat.status_code == 200

    # An instance where every seat token of a finished game has expired.
    expired = dataclasses.replace(settings, seat_token_after_game=0.0)
    async with AsyncTestClient(create_app(expired)) as later:
        refused = await later.get(f"/games/{game_id}/seats/0/transcript", headers=bearer(seat_token))
        assert (refused.status_code, refused.json()["code"]) == (401, "token_expired")
        mine = await later.get(f"/players/me/games/{game_id}/transcript", headers=bearer(pat.token))
        assert mine.status_code == 200
        assert mine.text == by_seat.text
        chosen = await later.get(
            f"/players/me/games/{game_id}/transcript", params={"seat": 0}, headers=bearer(pat.token)
        )
        assert chosen.text == by_seat.text


async def test_a_player_who_did_not_hold_the_seat_is_refused_its_transcript(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    pat, sam, eve = [await api.create_player(n) for n in ("pat", "sam", "eve")]
    game_id = (await finished_game(api, pat, sam)).game_id
    path = f"/players/me/games/{game_id}/transcript"

    stranger = await http.get(path, headers=bearer(eve.token))
    assert (stranger.status_code, stranger.json()["code"]) == (403, "seat_not_held")
    other_seat = await http.get(path, params={"seat": 1}, headers=bearer(pat.token))
    assert (other_seat.status_code, other_seat.json()["code"]) == (403, "seat_not_held")
    conceded = await http.get(path, headers=bearer(sam.token))  # a conceded seat is still sam's
    assert conceded.status_code == 200

    # Joined then left before the start: the seat went to someone else, and so did its transcript.
    created = await api.create_game("exploding_kittens", {"players": 2, "reaction_window": 0})
    gone = await api.join(created.game_id, player_token=eve.token)
    await api.leave(created.game_id, 0, gone.token)
    seats = [await api.join(created.game_id, f"p{n}") for n in range(2)]
    await api.start(created.game_id, created.host_token)
    await api.leave(created.game_id, 1, seats[1].token)
    left = await http.get(f"/players/me/games/{created.game_id}/transcript", headers=bearer(eve.token))
    assert (left.status_code, left.json()["code"]) == (403, "seat_not_held")

    unknown = await http.get(f"/players/me/games/{uuid.uuid4()}/transcript", headers=bearer(eve.token))
    assert (unknown.status_code, unknown.json()["code"]) == (404, "not_found")


async def test_a_running_games_transcript_waits_for_the_end(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    pat = await api.create_player("pat")
    created = await api.create_game("exploding_kittens", {"players": 2})
    await api.join(created.game_id, player_token=pat.token)
    await api.join(created.game_id, "guest")
    await api.start(created.game_id, created.host_token)
    response = await http.get(f"/players/me/games/{created.game_id}/transcript", headers=bearer(pat.token))
    assert (response.status_code, response.json()["code"]) == (409, "game_not_finished")


async def test_two_players_with_one_display_name_keep_separate_statistics_and_guests_get_none(
    api: PlaylogClient, pool: asyncpg.Pool
) -> None:
    first, second = await api.create_player("sam"), await api.create_player("sam")
    players = await finished_game(api, first, second, delay=0)  # public at once
    guests = await api.create_game("exploding_kittens", {"players": 2, "reaction_window": 0})
    seats = [await api.join(guests.game_id, "sam") for _ in range(2)]
    await api.start(guests.game_id, guests.host_token)
    summary = await api.leave(guests.game_id, 1, seats[1].token)
    await eventually(lambda: projected(pool, guests.game_id, summary.version))
    await eventually(lambda: projected(pool, players.game_id, players.version))

    shown = [await api.player(p.player_id) for p in (first, second)]
    assert [(p.name, [(s.kind, s.played, s.won) for s in p.stats]) for p in shown] == [
        ("sam", [("exploding_kittens", 1, 1)]),
        ("sam", [("exploding_kittens", 1, 0)]),
    ]
    # The guests' game counted for nobody: the only statistics are the two players'.
    rows = await pool.fetch("SELECT DISTINCT player_id FROM player_games ORDER BY player_id")
    assert sorted(r["player_id"] for r in rows) == sorted([first.player_id, second.player_id])
