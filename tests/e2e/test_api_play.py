"""Playing through the API: concurrency, idempotency, server-side deadlines, no leaks."""

from __future__ import annotations

import asyncio
import contextlib
import random
from typing import Any

import msgspec
from litestar import Litestar
from litestar.testing import AsyncTestClient

from domain.viewers import Moderator
from projections import table as tables
from service.store.events import EventStore
from service.tools.client import ApiError, PlaylogClient
from tests.e2e.conftest import Game, started_game
from tests.e2e.dealt import dealt_game, legal

EK = "exploding_kittens"


async def test_same_expected_version_twice_applies_exactly_one(game: Game) -> None:
    active = await game.active()
    version = (await game.view(active)).version
    results = await asyncio.gather(
        game.send(active, {"type": "DrawCard"}, expected_version=version),
        game.send(active, {"type": "DrawCard"}, expected_version=version),
        return_exceptions=True,
    )
    applied = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, ApiError)]
    assert len(applied) == 1
    assert [(e.status, e.code) for e in refused] == [(409, "version_conflict")]


async def test_without_expected_version_each_command_sees_the_other(game: Game, store: EventStore) -> None:
    active = await game.active()
    before = (await game.view(active)).version
    results = await asyncio.gather(
        game.send(active, {"type": "DrawCard"}),
        game.send(active, {"type": "DrawCard"}),
        return_exceptions=True,
    )
    applied = [r for r in results if not isinstance(r, BaseException)]
    refused = [r for r in results if isinstance(r, ApiError)]
    assert len(applied) == 1
    # The second was decided against a state that already held the first draw.
    assert len(refused) == 1 and refused[0].code in {"not_your_turn", "decision_pending"}
    drawn = [e for e in await store.read(game.id, after_seq=before) if e.type in {"CardDrawn", "KittenDrawn"}]
    assert len(drawn) == 1


ACTIONS = {"Skip", "Shuffle", "See the Future"}  # a card that opens a Nope window when played


def _active_holds_an_action_card(state: Any) -> bool:
    return any(c["type"] == "PlayCard" and c["card"] in ACTIONS for c in legal(EK, state, state.active_seat))


async def _game_with_playable_action(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> tuple[Game, int, dict[str, Any]]:
    """A game whose active seat may play an action card, dealt through the committed seeds."""
    options = {"players": 2, "reaction_window": 0.3}
    game = await dealt_game(api, http, moderator, EK, options, _active_holds_an_action_card)
    active = await game.active()
    view = await game.view(active)
    plays = [c for c in view.legal_commands if c["type"] == "PlayCard" and c["card"] in ACTIONS]
    return game, active, plays[0]


async def test_nope_window_closes_on_time_without_any_request(
    api: PlaylogClient, http: AsyncTestClient[Litestar], moderator: dict[str, str]
) -> None:
    game, active, play = await _game_with_playable_action(api, http, moderator)
    await game.send(active, play)
    view = await game.view(active)
    assert view.view is not None and view.view["public"]["window"] is not None
    deadline = view.view["public"]["window"]["deadline"]
    async with asyncio.timeout(30):  # no command in the meantime: the scheduler closes it
        while (after := await game.view(active)).view is not None and after.view["public"]["window"]:
            await asyncio.sleep(0.05)
    assert after.view is not None
    assert after.view["public"]["window"] is None
    events = await api.events(game.id, active, game.seats[active].token, after=view.version)
    assert [e.type for e in events][:1] == ["ReactionsResolved"]
    assert events[0].data["closed_by"] == "deadline"
    # Resolved by the server within a few scheduler ticks of the deadline.
    assert events[0].recorded_at >= deadline


def _card_lists(node: Any) -> list[list[str]]:
    """Every list of strings in a JSON document."""
    found: list[list[str]] = []
    if isinstance(node, dict):
        for value in node.values():
            found += _card_lists(value)
    elif isinstance(node, list):
        if node and all(isinstance(v, str) for v in node):
            found.append(node)
        for value in node:
            found += _card_lists(value)
    return found


def _contains_run(haystack: list[str], needle: list[str]) -> bool:
    n = len(needle)
    return any(haystack[i : i + n] == needle for i in range(len(haystack) - n + 1))


async def test_no_response_of_a_seat_contains_another_seats_cards_or_the_pile_order(
    api: PlaylogClient, http: Any, store: EventStore
) -> None:
    rng = random.Random(3)
    bodies: list[tuple[int, Any]] = []  # (seat, decoded body)
    for players in (2, 3, 4):
        game = await started_game(api, players=players, reaction_window=0, seed=players)
        tokens = {s.token: s.seat for s in game.seats}

        async def record(response: Any, tokens: dict[str, int] = tokens) -> None:
            auth = response.request.headers.get("authorization", "")
            seat = tokens.get(auth.removeprefix("Bearer "))
            if seat is not None:
                await response.aread()
                bodies.append((seat, msgspec.json.decode(response.content)))

        http.event_hooks["response"].append(record)
        try:
            for _ in range(400):
                views = [await game.view(s) for s in range(players)]
                if views[0].status == "finished":
                    break
                options = [(v.seat, c) for v in views for c in v.legal_commands if c["type"] != "Concede"]
                seat, command = rng.choice(options)
                with contextlib.suppress(ApiError):
                    await game.send(seat, command)
                await api.events(game.id, seat, game.seats[seat].token, after=max(0, views[0].version - 5))
        finally:
            http.event_hooks["response"].remove(record)

        # The truth at every version, from the log, through the moderator's eyes.
        piles: list[list[str]] = []
        hands_by_seat: dict[int, list[list[str]]] = {s: [] for s in range(players)}
        table = None
        for stored in await store.read(game.id):
            kind = table.kind if table else None
            table = tables.evolve(table, tables.decode(kind, stored.type, stored.data, stored.schema_version))
            if table.status == "running":
                truth = msgspec.to_builtins(table.decider.view(table.state, Moderator()))
                piles.append(truth["draw_pile"])
                for s, hand in enumerate(truth["hands"]):
                    hands_by_seat[s].append(hand)
        for seat, body in bodies:
            lists = _card_lists(body)
            for pile in piles:
                if len(pile) >= 4:
                    assert not any(_contains_run(found, pile) for found in lists), "draw pile order leaked"
            for other, hands in hands_by_seat.items():
                if other == seat:
                    continue
                own = {tuple(h) for h in hands_by_seat[seat]}
                for hand in hands:
                    if len(hand) >= 5 and tuple(hand) not in own:
                        assert hand not in lists, f"seat {other}'s hand leaked to seat {seat}"
        bodies.clear()


async def test_a_seat_sending_the_old_leave_concedes_as_with_concede(game: Game) -> None:
    # Issue 39: Exploding Kittens' ``Leave`` is the kernel's ``Concede``; a client that still
    # sends the old tag is understood, and the log records today's.
    result = await game.send(0, {"type": "Leave"})
    assert "PlayerConceded" in [e.type for e in result.events]
    assert (await game.view(1)).winners == [1]


async def test_a_command_can_return_the_seats_view_right_after(game: Game) -> None:
    active = await game.active()
    result = await game.send(active, {"type": "DrawCard"}, with_view=True)
    assert result.view is not None
    assert result.view.version == result.version
    assert result.view == await game.view(active)
    plain = await game.send(1 - active, {"type": "Concede"})
    assert plain.view is None
