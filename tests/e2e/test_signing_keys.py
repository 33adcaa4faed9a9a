"""Key rotation: several keys at once, the newest signs, a removed or unknown key verifies nothing."""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import asyncpg
import jwt
import pytest
from litestar import Litestar
from litestar.testing import AsyncTestClient

from service import deployment
from service.app import auth
from service.app.auth import Keyring, Principal, derived_kid
from service.config import Settings
from service.http.app import create_app

OLD = "old-secret-that-is-long-enough-for-hs256"
NEW = "new-secret-that-is-long-enough-for-hs256"


@asynccontextmanager
async def app_with(settings: Settings, secret: str) -> AsyncIterator[AsyncTestClient[Litestar]]:
    """The app with the keys ``secret``, recorded first as the deployment's, as an operator who
    changes them does (``playlog deployment adopt PLAYLOG_JWT_SECRET``; docs/scaling.md)."""
    changed = dataclasses.replace(settings, jwt_secret=secret)
    conn = await asyncpg.connect(settings.database_url)
    try:
        await deployment.adopt(
            conn, changed, changed.log_identity(), changed.keyring(), ["PLAYLOG_JWT_SECRET"]
        )
    finally:
        await conn.close()
    async with AsyncTestClient(create_app(changed)) as http:
        yield http


def test_a_keyring_lists_kid_secret_pairs_newest_first() -> None:
    keys = Keyring.parse(f"k2:{NEW}, k1:{OLD}")
    assert keys.signing == ("k2", NEW)
    assert keys.secret("k1") == OLD and keys.secret("k0") is None


def test_a_bare_secret_keeps_its_kid_when_listed_after_a_new_key() -> None:
    alone = Keyring.parse(OLD)
    rotated = Keyring.parse(f"k2:{NEW},{OLD}")
    assert alone.signing == (derived_kid(OLD), OLD)
    assert rotated.secret(alone.signing[0]) == OLD


def test_a_keyring_refuses_an_empty_value_and_a_kid_named_twice() -> None:
    with pytest.raises(ValueError):
        Keyring.parse(" , ")
    with pytest.raises(ValueError):
        Keyring.parse(f"a:{OLD},a:{NEW}")


async def _lobby_token_works(http: AsyncTestClient[Litestar], host_token: str, game_id: str) -> int:
    # Starting a game with one free seat: 409 once the token is accepted, 401 when it is not.
    response = await http.post(f"/games/{game_id}/start", headers={"Authorization": f"Bearer {host_token}"})
    return response.status_code


async def test_rotation_keeps_old_tokens_until_their_key_is_removed(settings: Settings) -> None:
    async with app_with(settings, OLD) as http:
        game = (
            await http.post("/games", json={"kind": "exploding_kittens", "options": {"players": 2}})
        ).json()
    old_token, game_id = game["host_token"], game["game_id"]

    async with app_with(settings, f"k2:{NEW},{OLD}") as http:  # rotated: the new key signs
        assert await _lobby_token_works(http, old_token, game_id) == 409
        fresh = (
            await http.post("/games", json={"kind": "exploding_kittens", "options": {"players": 2}})
        ).json()
        assert jwt.get_unverified_header(fresh["host_token"])["kid"] == "k2"

    async with app_with(settings, f"k2:{NEW}") as http:  # the old key removed
        assert await _lobby_token_works(http, old_token, game_id) == 401
        assert await _lobby_token_works(http, fresh["host_token"], fresh["game_id"]) == 409


async def test_a_token_naming_an_unknown_kid_is_refused(
    settings: Settings, http: AsyncTestClient[Litestar]
) -> None:
    game = (await http.post("/games", json={"kind": "exploding_kittens", "options": {"players": 2}})).json()
    keys = settings.keyring()
    # Signed with the right secret, but under a kid the server does not list.
    forged = auth.issue(
        Keyring((("nope", keys.signing[1]),)), Principal(role="host", game_id=uuid.UUID(game["game_id"])), 600
    )
    assert await _lobby_token_works(http, forged, game["game_id"]) == 401
    assert await _lobby_token_works(http, game["host_token"], game["game_id"]) == 409


async def test_a_token_signed_by_another_key_under_a_known_kid_is_refused(
    settings: Settings, http: AsyncTestClient[Litestar]
) -> None:
    game = (await http.post("/games", json={"kind": "exploding_kittens", "options": {"players": 2}})).json()
    kid = settings.keyring().signing[0]
    forged = auth.issue(
        Keyring(((kid, "x" * 40),)), Principal(role="host", game_id=uuid.UUID(game["game_id"])), 600
    )
    assert await _lobby_token_works(http, forged, game["game_id"]) == 401


async def test_a_player_refreshes_its_token_onto_the_new_key_before_the_old_one_goes(
    settings: Settings,
) -> None:
    async with app_with(settings, OLD) as http:
        player = (await http.post("/players", json={"name": "pat"})).json()
    async with app_with(settings, f"k2:{NEW},{OLD}") as http:
        fresh = await http.post("/players/me/token", headers={"Authorization": f"Bearer {player['token']}"})
        assert fresh.status_code == 200 and fresh.json()["player_id"] == player["player_id"]
        assert jwt.get_unverified_header(fresh.json()["token"])["kid"] == "k2"
    async with app_with(settings, f"k2:{NEW}") as http:
        for token, status in ((player["token"], 401), (fresh.json()["token"], 200)):
            response = await http.post("/players/me/token", headers={"Authorization": f"Bearer {token}"})
            assert response.status_code == status
