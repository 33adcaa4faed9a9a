"""RULES 3's decisions carried over HTTP: one smoke test per game and kind of decision.

The rules themselves are proven once, in the unit tests (tests/rules_coverage.py names them):
here each kind of decision the HTTP path must carry is seen to arrive — a pending decision
answered, a deadline acted on by the scheduler, a concession through ``DELETE``, the game's end.
A test that needs a particular deal gets it through the committed randomness (tests/e2e/dealt.py),
never a hand-picked seed.
"""

from __future__ import annotations

import asyncio
from typing import Any

from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.tools.client import EventOut, PlaylogClient

from .conftest import Game, started_game
from .dealt import dealt_game, legal, then

ARC = "a_risk_cat"
NO_TIMEOUT = 600.0  # a deadline that exists but never passes during a test


async def _public(game: Game, seat: int = 0) -> dict[str, Any]:
    view = await game.view(seat)
    assert view.view is not None
    return view.view


async def _events(game: Game, seat: int = 0, after: int = 0) -> list[EventOut]:
    return await game.api.events(game.id, seat, game.seats[seat].token, after=after)


async def _leave(game: Game, seat: int) -> list[EventOut]:
    """Concede ``seat`` through DELETE and return the events it caused (as seat 1 sees them)."""
    before = (await game.view(1)).version
    summary = await game.api.leave(game.id, seat, game.seats[seat].token)
    assert summary.status in ("running", "finished")
    return await _events(game, 1, before)


async def _first_by_server(game: Game) -> EventOut:
    """Poll seat 0's events until the server has acted on a deadline (the scheduler, on its own)."""
    async with asyncio.timeout(30):  # a guard against a hang, not a speed check
        while not (acted := [e for e in await _events(game) if e.data.get("by_server")]):
            await asyncio.sleep(0.05)
    return acted[0]


def _types(events: list[EventOut]) -> list[str]:
    return [e.type for e in events]


def _steal_on_seat_1s_first_draw(state: Any) -> bool:
    """Seat 0 draws and stops; seat 1's first draw then matches seat 0's stack."""
    token = state.bag[0]
    state = then(ARC, state, 0, {"type": "DrawToken"})
    state = then(ARC, state, 0, {"type": "StopAndStack", "order": [token]})
    state = then(ARC, state, 1, {"type": "DrawToken"})
    return {"type": "StealRuns", "from_seats": [0]} in legal(ARC, state, 1)


# ---- A Risk Cat


async def test_a_risk_cat_pending_steal_is_answered_over_http(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    options = {"players": 3, "mode": "base", "first_seat": 0, "decision_timeout": NO_TIMEOUT}
    game = await dealt_game(api, http, moderator, ARC, options, _steal_on_seat_1s_first_draw)
    drawn = (await game.send(0, {"type": "DrawToken"})).events[0].data["token"]
    await game.send(0, {"type": "StopAndStack", "order": [drawn]})
    await game.send(1, {"type": "DrawToken"})
    view = await _public(game, 1)
    assert view["pending"]["kind"] == "steal" and view["pending"]["from_seats"] == [0]
    assert view["deadline"] is not None
    await game.send(1, {"type": "StealRuns", "from_seats": [0]})
    view = await _public(game, 1)
    assert view["stacks"][0]["size"] == 0 and len(view["turn_tokens"]) == 2


async def test_a_risk_cat_deadline_is_acted_on_by_the_scheduler_over_http(api: PlaylogClient) -> None:
    game = await started_game(api, ARC, players=3, first_seat=0, decision_timeout=1)
    acted = await _first_by_server(game)  # nobody draws: the server draws for seat 0
    assert acted.type == "TokenDrawn" and acted.data["seat"] == 0


async def test_a_risk_cat_leaving_concedes_and_the_last_seat_standing_ends_the_game_over_http(
    api: PlaylogClient,
) -> None:
    game = await started_game(api, ARC, players=3, first_seat=0, decision_timeout=NO_TIMEOUT)
    assert _types(await _leave(game, 2)) == ["SeatConceded"]
    assert (await _public(game, 1))["conceded"] == [2]
    events = await _leave(game, 0)
    assert _types(events) == ["SeatConceded", "ARiskCatGameEnded", "lobby.seed_disclosed"]
    summary = await api.game(game.id)
    assert summary.status == "finished" and summary.winners == [1] == events[1].data["winners"]


# ---- Exploding Kittens (leaving: the RULES 1.9 test below; the Nope window: test_api_play.py)


async def test_exploding_kittens_deadline_is_acted_on_by_the_scheduler_over_http(api: PlaylogClient) -> None:
    game = await started_game(api, players=2, reaction_window=0, decision_timeout=0.5)
    active = await game.active()
    acted = await _first_by_server(game)  # nobody draws: the server draws for the active seat
    assert acted.type in ("CardDrawn", "KittenDrawn") and acted.data["seat"] == active


# ---- RULES 1.9: moderators see everything; everyone does once a public game is over


async def test_everything_is_shown_to_moderators_and_to_everyone_once_a_public_game_is_over(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    for public in (True, False):
        created = await api.create_game(
            "exploding_kittens", {"players": 2, "reaction_window": 0}, public=public, spectator_delay=0
        )
        seats = [await api.join(created.game_id, f"p{n}") for n in range(2)]
        await api.start(created.game_id, created.host_token)
        path = f"/games/{created.game_id}/audit/log"
        assert (await http.get(path)).status_code == 401  # running: moderators only
        why = {"reason": "incident"}  # running: a moderator's face-up read needs a why
        full = (await http.get(path, params=why, headers=moderator)).json()
        dealt = next(e for e in full if e["type"] == "DeckDealt")
        assert dealt["data"]["draw_pile"] and all(dealt["data"]["hands"])  # the hidden cards
        await api.leave(created.game_id, 0, seats[0].token)
        host = {"Authorization": f"Bearer {created.host_token}"}  # a private game shows to its host
        assert (await http.get(f"/games/{created.game_id}", headers=host)).json()["status"] == "finished"
        anyone = await http.get(path)
        if public:
            assert anyone.status_code == 200 and anyone.json()[: len(full)] == full
            assert next(e for e in anyone.json() if e["type"] == "DeckDealt") == dealt
        else:
            assert anyone.status_code == 401
            seat = {"Authorization": f"Bearer {seats[1].token}"}
            assert (await http.get(path, headers=seat)).status_code == 403
