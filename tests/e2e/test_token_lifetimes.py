"""Each role's token lives as long as its right: exp, iat and jti on every token; expiry enforced."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import jwt
from litestar.testing import AsyncTestClient

from service.app import auth, moderators
from service.app.auth import Principal
from service.config import Settings
from service.http.app import create_app
from service.tools.client import PlaylogClient


def claims(token: str) -> dict[str, Any]:
    decoded: dict[str, Any] = jwt.decode(token, options={"verify_signature": False})
    return decoded


@asynccontextmanager
async def client(settings: Settings, **changes: Any) -> AsyncIterator[tuple[PlaylogClient, Any]]:
    async with AsyncTestClient(create_app(dataclasses.replace(settings, **changes))) as http:
        yield PlaylogClient(str(http.base_url), http=http), http


async def test_every_token_carries_exp_iat_jti_and_the_signing_kid(
    api: PlaylogClient, settings: Settings, database_url: str
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2})
    player = await api.create_player("pat")
    seat = await api.join(created.game_id, player_token=player.token)
    conn = await asyncpg.connect(database_url)
    try:
        moderator = await moderators.issue(conn, settings.keyring(), "mia", 2 * 3600)
    finally:
        await conn.close()

    lifetimes = {
        created.host_token: settings.host_token_lifetime,
        seat.token: settings.seat_token_lifetime,
        player.token: settings.player_token_lifetime,
        moderator: 2 * 3600,
    }
    kid = settings.keyring().signing[0]
    for token, lifetime in lifetimes.items():
        found = claims(token)
        assert found["exp"] - found["iat"] == int(lifetime), found["role"]
        assert jwt.get_unverified_header(token)["kid"] == kid
    assert len({claims(t)["jti"] for t in lifetimes}) == len(lifetimes)
    assert claims(moderator)["name"] == "mia"
    assert claims(seat.token)["occ"]  # the occupancy the seat token is bound to


async def test_moderator_tokens_are_short_and_refused_once_expired(
    api: PlaylogClient, settings: Settings
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2})
    stale = auth.issue(
        settings.keyring(), Principal(role="moderator", name="mia"), 3600, now=time.time() - 7200
    )
    refused = await api.http.get(
        f"/games/{created.game_id}/audit/log", headers={"Authorization": f"Bearer {stale}"}
    )
    assert (refused.status_code, refused.json()["code"]) == (401, "token_expired")


async def test_seat_and_host_tokens_past_their_exp_are_refused(
    api: PlaylogClient, settings: Settings
) -> None:
    created = await api.create_game("exploding_kittens", {"players": 2})
    seat = await api.join(created.game_id, "pat")
    long_ago = time.time() - settings.seat_token_lifetime - settings.host_token_lifetime
    occupancy = claims(seat.token)["occ"]  # the seat's holder now: only the expiry is wrong
    stale_seat = auth.issue(
        settings.keyring(),
        Principal(role="seat", game_id=created.game_id, seat=0, occupancy=occupancy),
        settings.seat_token_lifetime,
        now=long_ago,
    )
    stale_host = auth.issue(
        settings.keyring(),
        Principal(role="host", game_id=created.game_id),
        settings.host_token_lifetime,
        now=long_ago,
    )
    for method, path, token in (
        ("GET", f"/games/{created.game_id}/seats/0/view", stale_seat),
        ("POST", f"/games/{created.game_id}/start", stale_host),
    ):
        refused = await api.http.request(method, path, headers={"Authorization": f"Bearer {token}"})
        assert (refused.status_code, refused.json()["code"]) == (401, "token_expired"), path
    assert (await api.view(created.game_id, 0, seat.token)).seat == 0


async def test_a_seat_token_reads_a_finished_game_until_its_grace_ends(settings: Settings) -> None:
    for grace, status in ((3600.0, 200), (0.0, 401)):
        async with client(settings, seat_token_after_game=grace) as (api, http):
            created = await api.create_game("exploding_kittens", {"players": 2, "reaction_window": 0})
            seats = [await api.join(created.game_id, f"p{n}") for n in range(2)]
            await api.start(created.game_id, created.host_token)
            await api.leave(created.game_id, 1, seats[1].token)  # seat 0 wins: the game is over
            response = await http.get(
                f"/games/{created.game_id}/seats/0/transcript",
                headers={"Authorization": f"Bearer {seats[0].token}"},
            )
            assert response.status_code == status, grace
            if status == 401:
                assert response.json()["code"] == "token_expired"


async def test_a_host_token_ends_a_margin_after_the_start(settings: Settings) -> None:
    for margin, status, code in ((3600.0, 409, "game_already_started"), (0.0, 401, "token_expired")):
        async with client(settings, host_token_after_start=margin) as (api, http):
            created = await api.create_game("exploding_kittens", {"players": 2})
            for n in range(2):
                await api.join(created.game_id, f"p{n}")
            await api.start(created.game_id, created.host_token)
            again = await http.post(
                f"/games/{created.game_id}/start",
                headers={"Authorization": f"Bearer {created.host_token}"},
            )
            assert (again.status_code, again.json()["code"]) == (status, code), margin


async def test_a_player_token_is_refused_once_expired(api: PlaylogClient, settings: Settings) -> None:
    pat = await api.create_player("pat")
    stale = auth.issue(
        settings.keyring(),
        Principal(role="player", player_id=pat.player_id),
        settings.player_token_lifetime,
        now=time.time() - settings.player_token_lifetime - 60,
    )
    for token, status in ((stale, 401), (pat.token, 200)):
        response = await api.http.get("/players/me/games", headers={"Authorization": f"Bearer {token}"})
        assert response.status_code == status
    refused = await api.http.post("/players/me/token", headers={"Authorization": f"Bearer {stale}"})
    assert (refused.status_code, refused.json()["code"]) == (401, "token_expired")
