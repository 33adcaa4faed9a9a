"""Every route that takes an Idempotency-Key, over the real app (issues 34 and 42).

A key names one request of one caller: the same key again with the same request gets the first
answer (status and body), whatever else it carries and whatever happened since; with another
operation, another resource of the path or another body it gets 422 ``idempotency_key_reused``
and does nothing.
"""

from __future__ import annotations

import uuid
from typing import Any

import httpx
import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.config import Settings
from service.tools.client import CreatedGame, PlaylogClient
from tests.e2e.conftest import Game, started_game
from tests.e2e.test_disputes import Finished, bearer, finished_game, moderator_headers, raise_dispute


def _key(headers: dict[str, str], key: str) -> dict[str, str]:
    return {**headers, "Idempotency-Key": key}


def _refused(response: httpx.Response, status: int, code: str) -> None:
    assert (response.status_code, response.json()["code"]) == (status, code), response.text


def _same(first: httpx.Response, again: httpx.Response) -> None:
    assert (again.status_code, again.json()) == (first.status_code, first.json())


# -- a seat's commands ---------------------------------------------------------------------------


def _command_path(game: Game, seat: int, query: str) -> str:
    return f"/games/{game.id}/seats/{seat}/commands" + (f"?{query}" if query else "")


# "unknown=1" sends the request through Litestar's handler instead of the lane (test_lanes.py).
@pytest.mark.parametrize("extra", ["", "unknown=1"], ids=["lane", "litestar"])
async def test_a_retried_command_gets_its_first_answer_whatever_its_expected_version(
    api: PlaylogClient, http: AsyncTestClient[Litestar], extra: str
) -> None:
    game = await started_game(api, seed=5, reaction_window=0)
    seat = await game.active()
    version = (await game.view(seat)).version
    query = "&".join(q for q in (f"expected_version={version}", "view=true", extra) if q)
    headers = _key(bearer(game.seats[seat].token), "draw-1")
    body = msgspec.json.encode({"type": "DrawCard"})
    first = await http.post(_command_path(game, seat, query), content=body, headers=headers)
    assert first.status_code == 200, first.text
    again = await http.post(_command_path(game, seat, query), content=body, headers=headers)
    _same(first, again)
    # The game moves on; the retry still gets the first answer, with any expected_version.
    mover = await game.active()
    await game.send(mover, {"type": "DrawCard"})
    moved = (await game.view(seat)).version
    # (its view too: the seat's view right after the command, as the first answer gave it).
    for other in (f"expected_version={version + 5}", "expected_version=0", ""):
        query = "&".join(q for q in (other, "view=true", extra) if q)
        _same(first, await http.post(_command_path(game, seat, query), content=body, headers=headers))
    assert (await game.view(seat)).version == moved  # the retries appended nothing


async def test_a_command_key_used_again_for_another_body_or_seat(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    game = await started_game(api, seed=5, reaction_window=0)
    seat = await game.active()
    headers = _key(bearer(game.seats[seat].token), "k-cmd")
    body = msgspec.json.encode({"type": "DrawCard"})
    assert (await http.post(_command_path(game, seat, ""), content=body, headers=headers)).status_code == 200
    version = (await game.view(seat)).version
    # Another body with the same key: refused, nothing done.
    leave = msgspec.json.encode({"type": "Concede"})
    _refused(
        await http.post(_command_path(game, seat, ""), content=leave, headers=headers),
        422,
        "idempotency_key_reused",
    )
    assert (await game.view(seat)).version == version
    # Keys belong to their caller: the other seat's same key is its own request.
    other = 1 - seat
    await game.send(other, {"type": "DrawCard"}, idempotency_key="k-cmd")
    assert (await game.view(seat)).version > version


# -- disputes ------------------------------------------------------------------------------------


async def _two_disputes(api: PlaylogClient, http: AsyncTestClient[Litestar]) -> tuple[Finished, str, str]:
    game = await finished_game(api)
    a = await raise_dispute(http, game, 0)
    b = await raise_dispute(http, game, 1)
    return game, a["dispute_id"], b["dispute_id"]


async def _history(http: AsyncTestClient[Litestar], dispute_id: str, mod: dict[str, str]) -> list[str]:
    detail = (await http.get(f"/moderation/disputes/{dispute_id}", headers=mod)).json()
    return [step["type"] for step in detail["dispute"]["history"]]


RESOLVE = {"verdict": "dismissed", "explanation": "no fault found"}
# route -> (what both disputes go through first, the body, the status of a success)
MODERATION: dict[str, tuple[list[tuple[str, dict[str, Any] | None]], dict[str, Any] | None, int]] = {
    "claim": ([], None, 200),
    "release": ([("claim", None)], None, 200),
    "notes": ([], {"text": "a note"}, 201),
    "questions": ([("claim", None)], {"seat": 0, "text": "what happened?"}, 201),
    "resolve": ([("claim", None)], RESOLVE, 200),
    "reviews": ([("claim", None), ("resolve", RESOLVE)], {"reason": "look again"}, 201),
}


@pytest.mark.parametrize("route", sorted(MODERATION))
async def test_a_moderators_key_is_bound_to_its_dispute(
    api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings, route: str
) -> None:
    mod = moderator_headers(settings)
    _, a, b = await _two_disputes(api, http)
    before, body, status = MODERATION[route]
    for step, step_body in before:
        for dispute in (a, b):
            response = await http.post(f"/moderation/disputes/{dispute}/{step}", json=step_body, headers=mod)
            assert response.status_code < 300, response.text
    keyed = _key(mod, f"k-{route}")
    first = await http.post(f"/moderation/disputes/{a}/{route}", json=body, headers=keyed)
    assert first.status_code == status, first.text
    history = await _history(http, b, mod)
    # The same key on another dispute: refused, and that dispute is untouched.
    _refused(
        await http.post(f"/moderation/disputes/{b}/{route}", json=body, headers=keyed),
        422,
        "idempotency_key_reused",
    )
    assert await _history(http, b, mod) == history
    # The dispute moves on; the same request still gets its first answer.
    note = await http.post(f"/moderation/disputes/{a}/notes", json={"text": "later"}, headers=mod)
    assert note.status_code == 201, note.text
    _same(first, await http.post(f"/moderation/disputes/{a}/{route}", json=body, headers=keyed))


async def test_a_moderators_key_is_bound_to_its_game(
    api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings
) -> None:
    mod = moderator_headers(settings)
    first_game, second_game = await finished_game(api), await finished_game(api)
    a = (await raise_dispute(http, first_game))["dispute_id"]
    b = (await raise_dispute(http, second_game))["dispute_id"]
    keyed = _key(mod, "k-games")
    first = await http.post(f"/moderation/disputes/{a}/claim", headers=keyed)
    assert first.status_code == 200, first.text
    _refused(await http.post(f"/moderation/disputes/{b}/claim", headers=keyed), 422, "idempotency_key_reused")
    assert await _history(http, b, mod) == ["raised"]
    _same(first, await http.post(f"/moderation/disputes/{a}/claim", headers=keyed))


async def test_a_seats_key_is_bound_to_its_dispute_and_its_operation(
    api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings
) -> None:
    mod = moderator_headers(settings)
    game = await finished_game(api)
    raised = await http.post(
        f"/games/{game.game_id}/disputes",
        json={"seqs": [2], "category": "rules", "reason": "first"},
        headers=_key(game.seat(0), "k-raise"),
    )
    assert raised.status_code == 201, raised.text
    a, b = raised.json()["dispute_id"], (await raise_dispute(http, game, 0))["dispute_id"]
    for dispute in (a, b):
        await http.post(f"/moderation/disputes/{dispute}/claim", headers=mod)
        asked = await http.post(
            f"/moderation/disputes/{dispute}/questions", json={"seat": 0, "text": "why?"}, headers=mod
        )
        assert asked.status_code == 201, asked.text
    replies = f"/games/{game.game_id}/disputes/{{}}/replies"
    keyed = _key(game.seat(0), "k-reply")
    first = await http.post(replies.format(a), json={"text": "because"}, headers=keyed)
    assert first.status_code == 201, first.text
    history = await _history(http, b, mod)
    _refused(
        await http.post(replies.format(b), json={"text": "because"}, headers=keyed),
        422,
        "idempotency_key_reused",
    )
    # The raise's key on a reply (another operation): refused as well.
    _refused(
        await http.post(replies.format(b), json={"text": "because"}, headers=_key(game.seat(0), "k-raise")),
        422,
        "idempotency_key_reused",
    )
    assert await _history(http, b, mod) == history
    await http.post(f"/moderation/disputes/{a}/notes", json={"text": "later"}, headers=mod)
    _same(first, await http.post(replies.format(a), json={"text": "because"}, headers=keyed))


# -- the lobby -----------------------------------------------------------------------------------

CREATE = {"kind": "exploding_kittens", "options": {"players": 2, "reaction_window": 0}, "spectator_delay": 0}


async def test_two_creates_with_one_key_make_one_game_and_answer_alike(
    http: AsyncTestClient[Litestar],
) -> None:
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = await http.post("/games", json=CREATE, headers=key)
    assert first.status_code == 201, first.text
    again = await http.post("/games", json=CREATE, headers=key)
    _same(first, again)
    game_id = first.json()["game_id"]
    summary = (await http.get(f"/games/{game_id}")).json()
    assert summary["version"] == 1  # one lobby.created
    # The replayed host token acts.
    host = bearer(first.json()["host_token"])
    join = await http.post(f"/games/{game_id}/seats", json={"name": "ann"})
    assert join.status_code == 201
    # Another body with the key: refused, and no other game.
    other = {**CREATE, "public": False}
    _refused(await http.post("/games", json=other, headers=key), 422, "idempotency_key_reused")
    # Without a key, two creates are two games.
    plain = [(await http.post("/games", json=CREATE)).json()["game_id"] for _ in range(2)]
    assert len(set(plain)) == 2 and game_id not in plain
    await http.post(f"/games/{game_id}/seats", json={"name": "ben"})
    assert (await http.post(f"/games/{game_id}/start", headers=host)).status_code == 200


async def test_two_joins_with_one_key_take_one_seat_and_give_the_same_token(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    created = await api.create_game(
        "exploding_kittens", {"players": 2, "reaction_window": 0}, spectator_delay=0
    )
    seats = f"/games/{created.game_id}/seats"
    key = {"Idempotency-Key": str(uuid.uuid4())}
    first = await http.post(seats, json={"name": "ann"}, headers=key)
    assert first.status_code == 201, first.text
    _same(first, await http.post(seats, json={"name": "ann"}, headers=key))
    assert (await api.game(created.game_id)).seats == ["ann", None]
    _refused(await http.post(seats, json={"name": "eve"}, headers=key), 422, "idempotency_key_reused")
    # The answer lost: once the game is full and running, the join's replay still gives the seat
    # and its token, and the token acts.
    await api.join(created.game_id, "ben")
    await api.start(created.game_id, created.host_token)
    again = await http.post(seats, json={"name": "ann"}, headers=key)
    _same(first, again)
    seat = again.json()["seat"]
    view = await http.get(f"{seats}/{seat}/view", headers=bearer(again.json()["token"]))
    assert view.status_code == 200 and view.json()["seats"][seat] == "ann"


async def test_a_players_join_key_is_the_players_own(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 3}, spectator_delay=0)
    players = [await api.create_player(name) for name in ("ann", "ben")]
    seats = f"/games/{created.game_id}/seats"
    answers = [await http.post(seats, json={}, headers=_key(bearer(p.token), "join-1")) for p in players]
    assert [a.status_code for a in answers] == [201, 201]
    assert [a.json()["seat"] for a in answers] == [0, 1]
    _same(answers[0], await http.post(seats, json={}, headers=_key(bearer(players[0].token), "join-1")))
    assert (await api.game(created.game_id)).seats == ["ann", "ben", None]
    # A key sent for no game binds to none.
    missing = await http.post(
        f"/games/{uuid.uuid4()}/seats", json={}, headers=_key(bearer(players[1].token), "join-2")
    )
    _refused(missing, 404, "not_found")
    # The player's key on another game's seats: another request, refused; that game untouched.
    other = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    joined = await http.post(
        f"/games/{other.game_id}/seats", json={}, headers=_key(bearer(players[1].token), "join-2")
    )
    assert joined.status_code == 201, joined.text
    _refused(
        await http.post(
            f"/games/{other.game_id}/seats", json={}, headers=_key(bearer(players[0].token), "join-1")
        ),
        422,
        "idempotency_key_reused",
    )
    assert (await api.game(other.game_id)).seats == ["ben", None]


async def test_two_starts_with_one_key_answer_alike(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    key = str(uuid.uuid4())
    created = await http.post("/games", json=CREATE, headers={"Idempotency-Key": key})
    game_id, host = created.json()["game_id"], bearer(created.json()["host_token"])
    seats = [await api.join(uuid.UUID(game_id), name) for name in ("ann", "ben")]
    start = f"/games/{game_id}/start"
    first = await http.post(start, headers=_key(host, "start-1"))
    assert first.status_code == 200, first.text
    _same(first, await http.post(start, headers=_key(host, "start-1")))
    # The game moves on; the start's replay still answers as the start left the game.
    made = CreatedGame(uuid.UUID(game_id), "exploding_kittens", 2, created.json()["host_token"])
    game = Game(api, made, seats)
    await game.send(await game.active(), {"type": "DrawCard"})
    _same(first, await http.post(start, headers=_key(host, "start-1")))
    # Another key is another request: the game has started.
    _refused(await http.post(start, headers=_key(host, "start-2")), 409, "game_already_started")
    # The create's key (the same caller, the host) on the start: another operation.
    _refused(await http.post(start, headers=_key(host, key)), 422, "idempotency_key_reused")


async def test_a_lobby_key_out_of_its_schema_is_refused_by_name(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    bad = {"Idempotency-Key": "a b"}
    answers = [
        await http.post("/games", json=CREATE, headers=bad),
        await http.post(f"/games/{created.game_id}/seats", json={"name": "ann"}, headers=bad),
        await http.post(f"/games/{created.game_id}/start", headers={**bad, **bearer(created.host_token)}),
    ]
    for answer in answers:
        _refused(answer, 400, "invalid_idempotency_key")
    assert (await api.game(created.game_id)).seats == [None, None]


async def test_the_client_replays_a_lobby_call_with_its_key(api: PlaylogClient) -> None:
    key = str(uuid.uuid4())
    created = await api.create_game(
        "exploding_kittens", {"players": 2}, spectator_delay=0, idempotency_key=key
    )
    assert (
        await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0, idempotency_key=key)
        == created
    )
    joined = await api.join(created.game_id, "ann", idempotency_key=key)
    assert await api.join(created.game_id, "ann", idempotency_key=key) == joined
    await api.join(created.game_id, "ben")
    started = await api.start(created.game_id, created.host_token, idempotency_key="s")
    assert await api.start(created.game_id, created.host_token, idempotency_key="s") == started
