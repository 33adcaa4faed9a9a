"""No request from outside gets a 5xx: every class of bad input is a 4xx problem+json with a code."""

from __future__ import annotations

import asyncio
import json
import uuid

import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service.app.auth import Principal, issue
from service.config import Settings
from service.http.fast.serving import uvicorn_options
from tests.conftest import live_server
from tests.e2e.conftest import Game

INT32_OVERFLOW = 2**31
INT64_OVERFLOW = 2**63


def _problem(response: object, status: int, code: str) -> dict[str, object]:
    assert response.status_code == status, response.text  # type: ignore[attr-defined]
    assert response.headers["content-type"].startswith("application/problem+json")  # type: ignore[attr-defined]
    body: dict[str, object] = response.json()  # type: ignore[attr-defined]
    assert body["code"] == code, body
    assert body["status"] == status
    return body


def _auth(game: Game, seat: int) -> dict[str, str]:
    return {"Authorization": f"Bearer {game.seats[seat].token}"}


@pytest.mark.parametrize("body", [b"", b'{"type":', b"not json", b"[" * 5000, b'{"type": "DrawCard"'])
async def test_a_malformed_command_body_is_400_invalid_body(
    http: AsyncTestClient[Litestar], game: Game, body: bytes
) -> None:
    response = await http.post(
        f"/games/{game.id}/seats/0/commands",
        content=body,
        headers={**_auth(game, 0), "Content-Type": "application/json"},
    )
    _problem(response, 400, "invalid_body")


@pytest.mark.parametrize("body", [b"", b'{"kind":', b"not json", b"[" * 5000, b'{"kind": ' + b"[" * 5000])
async def test_a_malformed_lobby_body_is_400_invalid_body(
    http: AsyncTestClient[Litestar], body: bytes
) -> None:
    response = await http.post("/games", content=body, headers={"Content-Type": "application/json"})
    _problem(response, 400, "invalid_body")


async def test_a_malformed_join_body_is_400_invalid_body(http: AsyncTestClient[Litestar]) -> None:
    created = (
        await http.post("/games", json={"kind": "exploding_kittens", "options": {"players": 2}})
    ).json()
    for body in (b"", b"{", b"[" * 5000, b'{"name": "a", "extra": 1}', b'{"name": ""}'):
        response = await http.post(
            f"/games/{created['game_id']}/seats", content=body, headers={"Content-Type": "application/json"}
        )
        _problem(response, 400, "invalid_body")
    # Well-formed but nameless: only a player (whose name it takes) may join without one.
    _problem(await http.post(f"/games/{created['game_id']}/seats", json={}), 422, "invalid_name")


async def test_deep_nesting_inside_strings_is_fine(http: AsyncTestClient[Litestar]) -> None:
    response = await http.post("/games/", json={"kind": "exploding_kittens", "options": {"players": 2}})
    game_id = response.json()["game_id"]
    joined = await http.post(f"/games/{game_id}/seats", json={"name": "[" * 30 + "{"})
    assert joined.status_code == 201, joined.text


@pytest.mark.parametrize("content_type", ["text/plain", "application/x-www-form-urlencoded", "text/json"])
async def test_a_body_that_is_not_json_is_415(
    http: AsyncTestClient[Litestar], game: Game, content_type: str
) -> None:
    body = b'{"kind": "exploding_kittens", "options": {"players": 2}}'
    response = await http.post("/games", content=body, headers={"Content-Type": content_type})
    _problem(response, 415, "unsupported_media_type")
    response = await http.post(
        f"/games/{game.id}/seats/0/commands",
        content=b'{"type": "DrawCard"}',
        headers={**_auth(game, 0), "Content-Type": content_type},
    )
    _problem(response, 415, "unsupported_media_type")


async def test_json_with_a_charset_is_accepted(http: AsyncTestClient[Litestar]) -> None:
    body = b'{"kind": "exploding_kittens", "options": {"players": 2}}'
    response = await http.post(
        "/games", content=body, headers={"Content-Type": "application/json; charset=utf-8"}
    )
    assert response.status_code == 201, response.text


@pytest.mark.parametrize("after", [INT32_OVERFLOW, -1, INT64_OVERFLOW, "x"])
async def test_an_out_of_range_seq_is_400(http: AsyncTestClient[Litestar], game: Game, after: object) -> None:
    response = await http.get(
        f"/games/{game.id}/seats/0/events", params={"after": str(after)}, headers=_auth(game, 0)
    )
    _problem(response, 400, "invalid_after")


@pytest.mark.parametrize("version", [INT32_OVERFLOW, -1, INT64_OVERFLOW])
async def test_an_out_of_range_expected_version_is_400(
    http: AsyncTestClient[Litestar], game: Game, version: int
) -> None:
    response = await http.post(
        f"/games/{game.id}/seats/0/commands",
        params={"expected_version": str(version)},
        json={"type": "DrawCard"},
        headers=_auth(game, 0),
    )
    _problem(response, 400, "invalid_expected_version")


@pytest.mark.parametrize("seat", [INT32_OVERFLOW, INT64_OVERFLOW, -1])
async def test_an_out_of_range_seat_is_refused(
    http: AsyncTestClient[Litestar], game: Game, seat: int
) -> None:
    response = await http.get(f"/games/{game.id}/seats/{seat}/view", headers=_auth(game, 0))
    assert 400 <= response.status_code < 500, response.text
    assert response.headers["content-type"].startswith("application/problem+json")


async def test_an_out_of_range_audit_seq_is_400(
    http: AsyncTestClient[Litestar], game: Game, settings: Settings
) -> None:
    # A caller who may audit (the route's guard answers a caller who may not before the query).
    token = issue(settings.keyring(), Principal(role="moderator", name="mod"), 3600)
    response = await http.get(
        f"/games/{game.id}/audit/state",
        params={"at": str(INT32_OVERFLOW)},
        headers={"Authorization": f"Bearer {token}"},
    )
    _problem(response, 400, "invalid_at")


@pytest.mark.parametrize(
    "params",
    [
        {"offset": str(INT64_OVERFLOW)},
        {"offset": str(INT32_OVERFLOW)},
        {"offset": "-1"},
        {"limit": "null"},
        {"limit": "-1"},
        {"limit": "201"},
        {"limit": str(INT64_OVERFLOW)},
        {"status": "lost"},
    ],
)
async def test_bad_listing_parameters_are_400(
    http: AsyncTestClient[Litestar], params: dict[str, str]
) -> None:
    response = await http.get("/games", params=params)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("application/problem+json")


async def test_options_lists_every_method_of_a_path(http: AsyncTestClient[Litestar]) -> None:
    response = await http.options("/games")
    assert response.status_code in (200, 204)
    allowed = {m.strip() for m in response.headers["allow"].split(",")}
    assert {"GET", "POST", "OPTIONS"} <= allowed


@pytest.mark.parametrize("method", ["TRACE", "PUT", "PATCH"])
async def test_an_unsupported_method_is_405_with_allow(http: AsyncTestClient[Litestar], method: str) -> None:
    response = await http.request(method, "/games")
    body = _problem(response, 405, "method_not_allowed")
    assert body["detail"]
    allowed = {m.strip() for m in response.headers["allow"].split(",")}
    assert {"GET", "POST"} <= allowed


async def test_an_unknown_path_is_404_problem(http: AsyncTestClient[Litestar]) -> None:
    _problem(await http.get(f"/games/{uuid.uuid4()}/nothing"), 404, "not_found")


@pytest.mark.parametrize("timeout", [1e-9, 0.5, 86_401, 1e308])
async def test_a_risk_cat_decision_timeout_is_bounded(
    http: AsyncTestClient[Litestar], timeout: float
) -> None:
    options = {"players": 3, "decision_timeout": timeout}
    response = await http.post("/games", json={"kind": "a_risk_cat", "options": options})
    _problem(response, 422, "invalid_options")


async def test_a_risk_cat_accepts_a_day_of_decision_timeout(http: AsyncTestClient[Litestar]) -> None:
    options = {"players": 3, "decision_timeout": 86_400}
    response = await http.post("/games", json={"kind": "a_risk_cat", "options": options})
    assert response.status_code == 201, response.text


async def test_a_command_of_another_game_is_422_unknown_command(
    http: AsyncTestClient[Litestar], game: Game
) -> None:
    response = await http.post(
        f"/games/{game.id}/seats/0/commands", json={"type": "TakeMusicianCats"}, headers=_auth(game, 0)
    )
    body = _problem(response, 422, "unknown_command")
    assert "TakeMusicianCats" in str(body["detail"])


@pytest.mark.parametrize(
    "target",
    [
        "/games?cursor=\N{HORIZONTAL ELLIPSIS}".encode(),
        "/games?kind=\N{LATIN SMALL LETTER E WITH ACUTE}".encode(),
        b"/ga mes",
    ],
)
async def test_a_request_the_parser_refuses_is_400_problem_json(settings: Settings, target: bytes) -> None:
    """Bytes no HTTP/1.1 request target holds (a literal `cursor=…` sent by curl) are refused
    before the app, by the server's protocol (service/http/fast/serving.py), as every bad request is."""
    async with live_server(settings, **uvicorn_options(settings, in_process=True)) as url:
        host, port = url.removeprefix("http://").split(":")
        reader, writer = await asyncio.open_connection(host, int(port))
        writer.write(b"GET " + target + b" HTTP/1.1\r\nHost: " + host.encode() + b"\r\n\r\n")
        answer = await reader.read()
        writer.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 400 "), answer
    assert b"content-type: application/problem+json" in head.lower(), answer
    problem = json.loads(body)
    assert problem["code"] == "invalid_request" and problem["status"] == 400, problem
