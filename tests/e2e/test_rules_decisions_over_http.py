"""RULES 3's decisions over HTTP: timeout choices and conceding a running A Risk Cat game.

The seeds are chosen so the bag (``first_seat`` 0, three players) starts as each test needs; each
test checks the situation it relies on before acting.
"""

from __future__ import annotations

import asyncio
from typing import Any

from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.app.auth import Principal, issue
from service.config import Settings
from service.tools.client import EventOut, PlaylogClient

from .conftest import Game, started_game

STEAL_SEED = 1  # base mode: the bag starts p9, p9 (seat 1's first draw matches seat 0's top)
ROBIN_TIE_SEED = 39  # full mode: p7, p5, then Robin Tell (seat 2 sees two equally rich stacks)
NO_TIMEOUT = 600.0  # a deadline that exists but never passes during a test


async def _arc(api: PlaylogClient, seed: int, mode: str = "base", timeout: float = NO_TIMEOUT) -> Game:
    return await started_game(
        api, "a_risk_cat", players=3, mode=mode, seed=seed, first_seat=0, decision_timeout=timeout
    )


async def _public(game: Game, seat: int = 0) -> dict[str, Any]:
    view = await game.view(seat)
    assert view.view is not None
    return view.view


async def _events(game: Game, seat: int = 0, after: int = 0) -> list[EventOut]:
    return await game.api.events(game.id, seat, game.seats[seat].token, after=after)


async def _leave(game: Game, seat: int) -> list[EventOut]:
    """Concede ``seat`` through DELETE and return the events it caused (as seat 0 sees them)."""
    before = (await game.view(0)).version
    summary = await game.api.leave(game.id, seat, game.seats[seat].token)
    assert summary.status in ("running", "finished")
    return await _events(game, 0, before)


async def _draw_and_stop(game: Game, seat: int) -> None:
    result = await game.send(seat, {"type": "DrawToken"})
    token = result.events[0].data["token"]
    await game.send(seat, {"type": "StopAndStack", "order": [token]})


async def _until(game: Game, predicate: Any, seat: int = 0) -> list[EventOut]:
    """Poll the seat's events until ``predicate(events)`` holds (the scheduler acts on its own)."""
    for _ in range(400):
        events = await _events(game, seat)
        if predicate(events):
            return events
        await asyncio.sleep(0.05)
    raise AssertionError("the server did not act on the deadline")


def _types(events: list[EventOut]) -> list[str]:
    return [e.type for e in events]


# ---- A Risk Cat: leaving a running game concedes, in every phase of a turn


async def test_concede_before_drawing_skips_the_turn_over_http(api: PlaylogClient) -> None:
    game = await _arc(api, STEAL_SEED)
    bag_size = (await _public(game))["bag_size"]
    events = await _leave(game, 0)
    assert _types(events) == ["SeatConceded", "ARiskCatTurnStarted"]
    view = await _public(game, 1)
    assert view["conceded"] == [0] and view["active_seat"] == 1 and view["bag_size"] == bag_size
    assert view["legal_commands"] == [{"type": "DrawToken"}]


async def test_concede_mid_turn_stacks_the_tokens_in_front_over_http(api: PlaylogClient) -> None:
    game = await _arc(api, STEAL_SEED)
    drawn = (await game.send(0, {"type": "DrawToken"})).events[0].data["token"]
    events = await _leave(game, 0)
    assert _types(events) == ["SeatConceded", "TurnStopped", "ARiskCatTurnStarted"]
    assert events[1].data["by_server"] and events[1].data["new_top"] == drawn
    view = await _public(game, 1)
    assert view["stacks"][0] == {"seat": 0, "size": 1, "top": drawn}  # the stack stays
    assert view["active_seat"] == 1 and view["turn_tokens"] == []


async def test_concede_during_a_pending_steal_declines_it_over_http(api: PlaylogClient) -> None:
    game = await _arc(api, STEAL_SEED)
    await _draw_and_stop(game, 0)
    await game.send(1, {"type": "DrawToken"})
    assert (await _public(game, 1))["pending"]["kind"] == "steal"
    events = await _leave(game, 1)
    assert _types(events) == ["SeatConceded", "RunsStolen", "TurnStopped", "ARiskCatTurnStarted"]
    assert events[1].data["runs"] == [] and events[1].data["by_server"]
    view = await _public(game, 2)
    assert [s["size"] for s in view["stacks"]] == [1, 1, 0] and view["active_seat"] == 2


async def test_concede_as_the_target_of_a_pending_steal_keeps_it_open_over_http(api: PlaylogClient) -> None:
    game = await _arc(api, STEAL_SEED)
    await _draw_and_stop(game, 0)
    await game.send(1, {"type": "DrawToken"})
    pending = (await _public(game, 1))["pending"]
    assert pending["kind"] == "steal" and pending["from_seats"] == [0]
    deadline = (await _public(game, 1))["deadline"]
    events = await _leave(game, 0)
    assert _types(events) == ["SeatConceded"]
    view = await _public(game, 1)
    assert view["pending"] == pending and view["deadline"] == deadline
    await game.send(1, {"type": "StealRuns", "from_seats": [0]})  # its stack is still stealable
    view = await _public(game, 1)
    assert view["stacks"][0]["size"] == 0 and len(view["turn_tokens"]) == 2


async def test_concede_as_the_chooser_of_a_robin_tell_tie_over_http(api: PlaylogClient) -> None:
    game = await _arc(api, ROBIN_TIE_SEED, mode="full")
    await _draw_and_stop(game, 0)
    await _draw_and_stop(game, 1)
    await game.send(2, {"type": "DrawToken"})
    pending = (await _public(game, 2))["pending"]
    assert pending == {"kind": "robin_tell_target", "seat": 2, "candidates": [0, 1]}
    events = await _leave(game, 2)
    chosen = events[1]
    assert chosen.type == "RobinTellTargetChosen" and chosen.data["by_server"]
    assert chosen.data["robbed_seat"] == 0  # the first tied stack in seat order after seat 2
    assert _types(events)[-2:] == ["TurnStopped", "ARiskCatTurnStarted"]
    view = await _public(game, 0)
    assert view["active_seat"] == 0 and view["conceded"] == [2]


async def test_fewer_than_two_seats_standing_ends_and_scores_the_game_over_http(api: PlaylogClient) -> None:
    game = await _arc(api, STEAL_SEED)
    await _draw_and_stop(game, 0)
    await game.send(1, {"type": "DrawToken"})
    await _leave(game, 2)
    events = await _leave(game, 0)
    assert _types(events) == ["SeatConceded", "RunsStolen", "TurnStopped", "ARiskCatGameEnded"]
    summary = await api.game(game.id)
    assert summary.status == "finished" and summary.winners == [1]
    ended = events[-1].data
    assert ended["scores"][0] > 0 and ended["winners"] == [1]  # seat 0's stack was scored


# ---- timeout choices decided by RULES 3


async def test_robin_tell_tie_on_timeout_robs_the_first_stack_after_the_chooser_over_http(
    api: PlaylogClient,
) -> None:
    game = await _arc(api, ROBIN_TIE_SEED, mode="full", timeout=5.0)
    await _draw_and_stop(game, 0)
    await _draw_and_stop(game, 1)
    await game.send(2, {"type": "DrawToken"})
    assert (await _public(game, 2))["pending"]["candidates"] == [0, 1]
    events = await _until(game, lambda es: "RobinTellTargetChosen" in _types(es))
    chosen = next(e for e in events if e.type == "RobinTellTargetChosen")
    assert chosen.data["by_server"] and chosen.data["robbed_seat"] == 0


async def test_five_different_pick_on_timeout_takes_an_eligible_discard_over_http(api: PlaylogClient) -> None:
    game = await started_game(
        api, players=2, edition="classic", seed=3, first_seat=0, reaction_window=0, decision_timeout=5.0
    )
    view = await game.view(0)
    combos = [c for c in view.legal_commands if c["type"] == "PlayCombo" and len(c["cards"]) == 5]
    assert combos, "seed 3 deals seat 0 five different titles"
    await game.send(0, combos[0])
    discard = (await _public(game))["public"]["discard"]
    assert (await _public(game))["public"]["pending"]["kind"] == "discard_pick"
    events = await _until(game, lambda es: "CardTakenFromDiscard" in _types(es))
    taken = next(e for e in events if e.type == "CardTakenFromDiscard")
    assert taken.data["by_server"] and taken.data["card"] in discard
    assert taken.data["card"] != "Exploding Kitten"


# ---- RULES 1.9: moderators see everything; everyone does once a public game is over


async def test_everything_is_shown_to_moderators_and_to_everyone_once_a_public_game_is_over(
    api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings
) -> None:
    moderator = {
        "Authorization": f"Bearer {issue(settings.keyring(), Principal(role='moderator', name='mod'), 3600)}"
    }
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
