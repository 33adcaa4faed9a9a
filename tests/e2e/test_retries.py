"""A retry gets the first answer on every route that takes an Idempotency-Key, whatever other
headers and parameters it carries (issue 42).

For each keyed route: one request, then the same request again (same key, same body) once the
game has moved on, each time with other headers (another request id, another Accept or client,
several at once) and, for a command, with and without ``expected_version`` (stale, current or
none): every retry gets the first answer (status, body, ``Location``) and the log does not grow.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.config import Settings
from service.tools.client import PlaylogClient
from tests.e2e.conftest import started_game
from tests.e2e.test_disputes import bearer, finished_game, moderator_headers, raise_dispute

# Headers a client or a proxy may change between two sends of one request.
HEADERS: list[dict[str, str]] = [
    {},
    {"X-Request-ID": str(uuid.uuid4())},
    {"Accept": "application/json"},
    {"User-Agent": "another-client/2.0"},
    {
        "Accept": "*/*",
        "X-Request-ID": str(uuid.uuid4()),
        "Accept-Language": "fr",
        "Cache-Control": "no-cache",
    },
]


@dataclass
class Keyed:
    """One keyed request, its game (whose log must not grow) and a way to move that game on."""

    path: str
    body: dict[str, Any] | None
    headers: dict[str, str]
    game_id: str
    queries: list[str]  # the query strings each retry is sent with (the first is the first's)
    move_on: Callable[[], Awaitable[None]]


Setup = Callable[[PlaylogClient, AsyncTestClient[Litestar], Settings], Awaitable[Keyed]]
CREATE = {"kind": "exploding_kittens", "options": {"players": 2, "reaction_window": 0}, "spectator_delay": 0}
RESOLVE = {"verdict": "dismissed", "explanation": "no fault found"}


async def _nothing() -> None:
    return None


async def _create(api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings) -> Keyed:
    return Keyed("/games", CREATE, {}, "", [""], _nothing)


async def _join(api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings) -> Keyed:
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)

    async def fill_and_start() -> None:
        await api.join(created.game_id, "ben")
        await api.start(created.game_id, created.host_token)

    path = f"/games/{created.game_id}/seats"
    return Keyed(path, {"name": "ann"}, {}, str(created.game_id), [""], fill_and_start)


async def _start(api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings) -> Keyed:
    created = await api.create_game("exploding_kittens", {"players": 2}, spectator_delay=0)
    seats = [await api.join(created.game_id, name) for name in ("ann", "ben")]

    async def concede() -> None:
        await api.leave(created.game_id, 0, seats[0].token)

    host = bearer(created.host_token)
    return Keyed(f"/games/{created.game_id}/start", None, host, str(created.game_id), [""], concede)


async def _computer(api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings) -> Keyed:
    created = await api.create_game("a_risk_cat", {"players": 3}, spectator_delay=0)

    async def another_joins() -> None:  # not started: the computer player has nothing to play
        await api.join(created.game_id, "ben")

    host = bearer(created.host_token)
    path = f"/games/{created.game_id}/computer-players"
    return Keyed(path, {"level": "easy"}, host, str(created.game_id), [""], another_joins)


async def _command(api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings) -> Keyed:
    game = await started_game(api, seed=5, reaction_window=0)
    seat = await game.active()
    version = (await game.view(seat)).version

    async def next_draw() -> None:
        await game.send(await game.active(), {"type": "DrawCard"})

    # With expected_version (as first sent, stale, ahead), without it, with the view asked for.
    queries = [f"expected_version={version}", f"expected_version={version + 5}", "expected_version=0", ""]
    path = f"/games/{game.id}/seats/{seat}/commands"
    headers = bearer(game.seats[seat].token)
    return Keyed(path, {"type": "DrawCard"}, headers, str(game.id), queries, next_draw)


async def _raise(api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings) -> Keyed:
    game = await finished_game(api)

    async def another() -> None:
        await raise_dispute(http, game, 1)

    body = {"seqs": [2], "category": "rules", "reason": "the draw looked wrong"}
    return Keyed(f"/games/{game.game_id}/disputes", body, game.seat(0), str(game.game_id), [""], another)


async def _reply(api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings) -> Keyed:
    game = await finished_game(api)
    dispute = (await raise_dispute(http, game, 0))["dispute_id"]
    mod = moderator_headers(settings)
    await _ok(http.post(f"/moderation/disputes/{dispute}/claim", headers=mod))
    await _ok(
        http.post(f"/moderation/disputes/{dispute}/questions", json={"seat": 0, "text": "why?"}, headers=mod)
    )

    async def note() -> None:
        await _ok(http.post(f"/moderation/disputes/{dispute}/notes", json={"text": "later"}, headers=mod))

    path = f"/games/{game.game_id}/disputes/{dispute}/replies"
    return Keyed(path, {"text": "because"}, game.seat(0), str(game.game_id), [""], note)


def _moderation(
    route: str, before: list[tuple[str, dict[str, Any] | None]], body: dict[str, Any] | None
) -> Setup:
    async def setup(api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings) -> Keyed:
        game = await finished_game(api)
        dispute = (await raise_dispute(http, game, 0))["dispute_id"]
        mod = moderator_headers(settings)
        for step, step_body in before:
            await _ok(http.post(f"/moderation/disputes/{dispute}/{step}", json=step_body, headers=mod))

        async def another() -> None:
            await raise_dispute(http, game, 1)

        path = f"/moderation/disputes/{dispute}/{route}"
        return Keyed(path, body, mod, str(game.game_id), [""], another)

    return setup


ROUTES: dict[str, Setup] = {
    "createGame": _create,
    "joinGame": _join,
    "startGame": _start,
    "seatComputerPlayer": _computer,
    "sendCommand": _command,
    "raiseDispute": _raise,
    "replyToDispute": _reply,
    "claimDispute": _moderation("claim", [], None),
    "releaseDispute": _moderation("release", [("claim", None)], None),
    "noteDispute": _moderation("notes", [], {"text": "a note"}),
    "askSeat": _moderation("questions", [("claim", None)], {"seat": 0, "text": "what happened?"}),
    "resolveDispute": _moderation("resolve", [("claim", None)], RESOLVE),
    "reviewDispute": _moderation(
        "reviews", [("claim", None), ("resolve", RESOLVE)], {"reason": "look again"}
    ),
}


async def _ok(sent: Awaitable[httpx.Response]) -> httpx.Response:
    response = await sent
    assert response.status_code < 300, response.text
    return response


async def _version(http: AsyncTestClient[Litestar], game_id: str, settings: Settings) -> int:
    summary = await _ok(http.get(f"/games/{game_id}", headers=moderator_headers(settings)))
    version: int = summary.json()["version"]
    return version


def _answer(response: httpx.Response) -> tuple[int, Any, str | None]:
    return response.status_code, response.json(), response.headers.get("Location")


def test_every_keyed_route_is_here() -> None:
    """A route that takes an Idempotency-Key gets its retries tested here."""
    from tests.e2e.contract import _document

    keyed = {
        operation["operationId"]
        for path in _document()["paths"].values()
        for operation in path.values()
        if any(p["name"] == "Idempotency-Key" for p in operation.get("parameters", []))
    }
    assert keyed == set(ROUTES)


@pytest.mark.parametrize("route", sorted(ROUTES))
async def test_a_retry_with_any_headers_gets_the_first_answer(
    api: PlaylogClient, http: AsyncTestClient[Litestar], settings: Settings, route: str
) -> None:
    keyed = await ROUTES[route](api, http, settings)
    key = {"Idempotency-Key": str(uuid.uuid4())}

    async def send(query: str, extra: dict[str, str]) -> httpx.Response:
        path = f"{keyed.path}?{query}" if query else keyed.path
        return await http.post(path, json=keyed.body, headers={**keyed.headers, **extra, **key})

    first = await send(keyed.queries[0], {})
    assert first.status_code in (200, 201), first.text
    game_id = keyed.game_id or first.json()["game_id"]
    await keyed.move_on()
    version = await _version(http, game_id, settings)
    for query in keyed.queries:
        for extra in HEADERS:
            assert _answer(await send(query, extra)) == _answer(first), (query, extra)
    assert await _version(http, game_id, settings) == version  # the retries appended nothing
