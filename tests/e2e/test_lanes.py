"""The lanes (service/http/fast/lanes.py) answer a seat's command and view as Litestar's handlers do.

A request with a query parameter the route does not know goes to Litestar's handler (which
ignores it); the same request without it takes the lane. Both must give the same status, the
same headers in the same order and the same body, for answers and for refusals alike.
"""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.tools.client import PlaylogClient
from tests.e2e.conftest import Game, started_game

_VARYING = {
    "recorded_at",
    "request_id",
    "instance",
    "game_id",
    "deadline",
    "turn_deadline",
    "lobby_closes_at",
    "started_at",
}


def _same_shape(value: Any) -> Any:
    """``value`` without what differs between two games of one seed (ids, clocks, and so the
    receipts' signatures: only whether there is one)."""
    if isinstance(value, dict):
        return {
            k: ("~" if k in _VARYING else _signed(v) if k == "receipt" else _same_shape(v))
            for k, v in value.items()
        }
    if isinstance(value, list):
        return [_same_shape(item) for item in value]
    return value


def _signed(receipt: Any) -> str | None:
    return "signed note" if isinstance(receipt, str) and "\n\n\u2014 " in receipt else receipt


async def _pair(api: PlaylogClient) -> tuple[Game, Game]:
    first = await started_game(api, seed=11, reaction_window=0)
    return first, await started_game(api, seed=11, reaction_window=0)


async def _both(
    http: AsyncTestClient[Litestar],
    method: str,
    games: tuple[Game, Game],
    seat: int,
    tail: str,
    query: str,
    **kwargs: Any,
) -> list[tuple[int, list[str], Any]]:
    """The request on each game: through the lane, then (an unknown parameter added) through
    Litestar's handler."""
    answers = []
    for game, extra in zip(games, ("", "unknown=1"), strict=True):
        joined = "&".join(part for part in (query, extra) if part)
        path = f"/games/{game.id}/seats/{seat}/{tail}" + (f"?{joined}" if joined else "")
        headers = {"Authorization": f"Bearer {game.seats[seat].token}", **kwargs.pop("headers", {})}
        response = await http.request(method, path, headers=headers, **kwargs)
        answers.append(
            (response.status_code, [name for name, _ in response.headers.raw], _same_shape(response.json()))
        )
        kwargs["headers"] = {k: v for k, v in headers.items() if k != "Authorization"}
    return answers


async def test_a_command_with_its_view_answers_alike_in_the_lane_and_in_litestar(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    games = await _pair(api)
    seat = await games[0].active()
    version = (await games[0].view(seat)).version
    lane, litestar = await _both(
        http,
        "POST",
        games,
        seat,
        "commands",
        f"view=true&expected_version={version}",
        content=msgspec.json.encode({"type": "DrawCard"}),
        headers={"Content-Type": "application/json", "Idempotency-Key": "k-1"},
    )
    assert lane[0] == 200 and lane[2]["receipt"] == "signed note"
    assert lane == litestar


@pytest.mark.parametrize(
    ("who", "query", "body", "refusal"),
    [
        ("idle", "", msgspec.json.encode({"type": "DrawCard"}), (422, "not_your_turn")),
        ("active", "view=false", b'{"type": "NoSuchCommand"}', (400, "invalid_body")),
    ],
)
async def test_a_refused_command_answers_alike_in_the_lane_and_in_litestar(
    api: PlaylogClient,
    http: AsyncTestClient[Litestar],
    who: str,
    query: str,
    body: bytes,
    refusal: tuple[int, str],
) -> None:
    games = await _pair(api)
    active = await games[0].active()
    seat = active if who == "active" else 1 - active
    lane, litestar = await _both(http, "POST", games, seat, "commands", query, content=body)
    assert (lane[0], lane[2]["code"]) == refusal
    assert lane == litestar


async def test_a_seat_view_answers_alike_in_the_lane_and_in_litestar(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    games = await _pair(api)
    lane, litestar = await _both(http, "GET", games, 0, "view", "")
    assert lane[0] == 200
    assert lane == litestar


async def test_a_retried_command_answers_alike_in_the_lane_and_in_litestar(
    api: PlaylogClient, http: AsyncTestClient[Litestar]
) -> None:
    games = await _pair(api)
    seat = await games[0].active()
    version = (await games[0].view(seat)).version
    request = {
        "content": msgspec.json.encode({"type": "DrawCard"}),
        "headers": {"Content-Type": "application/json", "Idempotency-Key": "k-2"},
    }
    query = f"expected_version={version}"
    first = await _both(http, "POST", games, seat, "commands", query, **request)
    # Its expected_version is stale now: the key is looked up first, in both paths.
    again = await _both(http, "POST", games, seat, "commands", query, **request)
    assert first[0][0] == 200
    assert again == first
    assert first[0] == first[1]
