"""Seat tokens name who holds the seat: a former occupant's token grants nothing, anywhere."""

from __future__ import annotations

import asyncio
import json
import time
from contextlib import AsyncExitStack
from typing import Any

import httpx
import jwt
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.config import Settings
from service.http.app import create_app
from service.store.events import EventStore, NewEvent
from service.tools.client import ApiError, JoinedSeat, PlaylogClient
from tests.e2e.conftest import Game


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def alice_left_then_bob_and_carol_joined(api: PlaylogClient) -> tuple[Game, JoinedSeat]:
    """The issue's scenario: Alice takes seat 0 and leaves; Bob takes seat 0, Carol seat 1; start."""
    created = await api.create_game("exploding_kittens", {"players": 2, "reaction_window": 0, "seed": 3})
    alice = await api.join(created.game_id, "alice")
    await api.leave(created.game_id, 0, alice.token)
    bob = await api.join(created.game_id, "bob")
    carol = await api.join(created.game_id, "carol")
    assert (alice.seat, bob.seat, carol.seat) == (0, 0, 1)
    await api.start(created.game_id, created.host_token)
    return Game(api, created, [bob, carol]), alice


SEAT_ROUTES: list[tuple[str, str, Any]] = [
    ("GET", "view", None),
    ("GET", "events", None),
    ("GET", "transcript", None),
    ("GET", "stream", None),
    ("POST", "commands", {"type": "Concede"}),
    ("DELETE", "", None),
]


async def test_a_former_occupants_token_is_refused_on_every_seat_route(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    game, alice = await alice_left_then_bob_and_carol_joined(api)
    for method, route, body in SEAT_ROUTES:
        path = f"/games/{game.id}/seats/0/{route}".rstrip("/")
        response = await http.request(method, path, headers=bearer(alice.token), json=body)
        assert (response.status_code, response.json()["code"]) == (403, "seat_token_revoked"), (method, route)
    # Bob still holds the seat, and Carol has not won: Alice's Concede changed nothing.
    view = await game.view(0)
    assert view.status == "running" and view.view is not None
    assert view.view["public"]["alive"] == [True, True]


async def test_a_former_occupants_stale_command_is_refused_before_any_version_is_told(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    """A version conflict names the seat's version in its own numbering (RULES 3): a token whose
    holder left is refused as such, never told where the new holder's game stands."""
    game, alice = await alice_left_then_bob_and_carol_joined(api)
    for version in (0, 1, 10_000):
        response = await http.post(
            f"/games/{game.id}/seats/0/commands",
            params={"expected_version": version},
            headers=bearer(alice.token),
            json={"type": "DrawCard"},
        )
        assert (response.status_code, response.json()["code"]) == (403, "seat_token_revoked"), version
        assert "current_version" not in response.json()


async def test_the_current_occupant_keeps_every_right(api: PlaylogClient) -> None:
    game, _ = await alice_left_then_bob_and_carol_joined(api)
    assert (await game.view(0)).seat == 0
    assert await api.events(game.id, 0, game.seats[0].token)


async def test_a_seat_token_of_a_freed_seat_is_refused_before_the_start(api: PlaylogClient) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2})
    alice = await api.join(created.game_id, "alice")
    await api.leave(created.game_id, 0, alice.token)
    try:
        await api.view(created.game_id, 0, alice.token)
        raise AssertionError("a left seat's token still reads it")
    except ApiError as exc:
        assert (exc.status, exc.code) == (403, "seat_token_revoked")


async def test_a_leaving_occupants_open_stream_ends_when_the_seat_changes_hands(server_url: str) -> None:
    async with httpx.AsyncClient(base_url=server_url) as http:
        api = PlaylogClient(server_url, http=http)
        created = await api.create_game("exploding_kittens", {"players": 2, "reaction_window": 0})
        alice = await api.join(created.game_id, "alice")
        path = f"/games/{created.game_id}/seats/0/stream"
        received: list[dict[str, Any]] = []
        opened = asyncio.Event()

        async def follow() -> None:
            async with http.stream("GET", path, headers=bearer(alice.token), timeout=None) as response:
                assert response.status_code == 200
                async for line in response.aiter_lines():
                    message = json.loads(line.removeprefix("data:")) if line.startswith("data:") else {}
                    if "type" in message:  # an event (the stream's receipts are not)
                        received.append(message)
                        opened.set()

        stream = asyncio.create_task(follow())
        await asyncio.wait_for(opened.wait(), 30)  # the stream delivered the log so far
        await api.leave(created.game_id, 0, alice.token)
        bob = await api.join(created.game_id, "bob")
        await api.join(created.game_id, "carol")
        await api.start(created.game_id, created.host_token)
        await asyncio.wait_for(stream, 30)  # the server ended it (bounded: a hang fails the test)

        assert [m["type"] for m in received] == ["lobby.created", "lobby.joined"]
        # Bob's stream of the same seat, from the start: everything, his hand included.
        async with http.stream("GET", path, headers=bearer(bob.token), timeout=30) as response:
            assert response.status_code == 200
            async for line in response.aiter_lines():
                if line.startswith("data:") and json.loads(line[5:]).get("type") == "lobby.started":
                    break


async def test_a_conceded_seat_reads_its_view_and_transcript_but_cannot_act(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 3, "reaction_window": 0, "seed": 5})
    seats = [await api.join(created.game_id, f"p{n}") for n in range(3)]
    await api.start(created.game_id, created.host_token)
    game = Game(api, created, seats)
    await api.leave(game.id, 0, seats[0].token)  # concedes; two players go on

    view = await game.view(0)
    assert view.status == "running" and view.view["public"]["alive"][0] is False
    assert await api.events(game.id, 0, seats[0].token)
    for method, route, body in [("POST", "commands", {"type": "DrawCard"}), ("DELETE", "", None)]:
        path = f"/games/{game.id}/seats/0/{route}".rstrip("/")
        response = await http.request(method, path, headers=bearer(seats[0].token), json=body)
        assert (response.status_code, response.json()["code"]) == (403, "seat_conceded"), route

    await api.leave(game.id, 1, seats[1].token)  # the last one standing wins
    transcript = await http.get(f"/games/{game.id}/seats/0/transcript", headers=bearer(seats[0].token))
    assert transcript.status_code == 200 and transcript.text


async def test_a_concession_sent_again_with_its_key_gets_its_result_and_another_key_is_refused(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 3, "reaction_window": 0, "seed": 5})
    seats = [await api.join(created.game_id, f"p{n}") for n in range(3)]
    await api.start(created.game_id, created.host_token)
    path = f"/games/{created.game_id}/seats/0/commands"
    concede = {"type": "Concede"}
    first = await http.post(path, headers={**bearer(seats[0].token), "Idempotency-Key": "c1"}, json=concede)
    again = await http.post(path, headers={**bearer(seats[0].token), "Idempotency-Key": "c1"}, json=concede)
    assert first.status_code == 200 and again.status_code == 200
    assert again.json()["events"] == first.json()["events"]
    other = await http.post(path, headers={**bearer(seats[0].token), "Idempotency-Key": "c2"}, json=concede)
    assert (other.status_code, other.json()["code"]) == (403, "seat_conceded")


async def test_a_token_from_before_occupancies_keeps_its_seat_joined_before_them_only(
    api: PlaylogClient, store: EventStore, settings: Settings
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2})
    # A join recorded before occupancy ids existed, and a token of that time (no kid, no occ).
    old_join = b'{"type":"lobby.joined","seat":0,"name":"old"}'
    await store.append(created.game_id, 1, [NewEvent(type="lobby.joined", data=old_join)], actor="lobby")
    claims = {"role": "seat", "game_id": str(created.game_id), "exp": int(time.time()) + 600}
    old_tokens = [
        jwt.encode({**claims, "seat": seat}, settings.secret(), algorithm="HS256") for seat in (0, 1)
    ]

    assert (await api.view(created.game_id, 0, old_tokens[0])).seat == 0
    await api.join(created.game_id, "new")  # seat 1, with an occupancy id
    with pytest.raises(ApiError) as refused:
        await api.view(created.game_id, 1, old_tokens[1])
    assert (refused.value.status, refused.value.code) == (403, "seat_token_revoked")


async def test_a_former_occupants_token_is_refused_by_another_instance_that_cached_the_game(
    settings: Settings,
) -> None:
    async with AsyncExitStack() as stack:
        apps = [await stack.enter_async_context(AsyncTestClient(create_app(settings))) for _ in range(2)]
        first, second = [PlaylogClient(str(http.base_url), http=http) for http in apps]
        created = await first.create_game("exploding_kittens", {"players": 2, "reaction_window": 0})
        alice = await first.join(created.game_id, "alice")
        assert (await second.view(created.game_id, 0, alice.token)).seat == 0  # cached there
        await first.leave(created.game_id, 0, alice.token)
        bob = await first.join(created.game_id, "bob")
        await first.join(created.game_id, "carol")
        await first.start(created.game_id, created.host_token)

        for method, route, body in SEAT_ROUTES:
            path = f"/games/{created.game_id}/seats/0/{route}".rstrip("/")
            response = await apps[1].request(method, path, headers=bearer(alice.token), json=body)
            assert (response.status_code, response.json()["code"]) == (403, "seat_token_revoked"), route
        assert (await second.view(created.game_id, 0, bob.token)).seat == 0
