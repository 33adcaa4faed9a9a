"""Players: create an identity, revoke its token, read a player's statistics."""

from __future__ import annotations

import uuid
from typing import Annotated

import msgspec
from litestar import Controller, delete, get, post
from litestar.datastructures import State
from litestar.di import Provide

from service.api import guards
from service.api.deps import provide_principal
from service.api.lobby import NAME_PATTERN
from service.api.problems import BEARER, JSON_BODY, PARAMS, RATE_LIMITED, UNAVAILABLE, problems
from service.auth import Principal
from service.players import PlayerOut, Players


class CreatePlayer(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # A display name, not unique: 1 to 40 characters once trimmed.
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=40, pattern=NAME_PATTERN)]


class PlayerCreatedOut(msgspec.Struct, frozen=True):
    player_id: uuid.UUID
    name: str
    token: str  # the player's credential: send it when joining a seat


def _players(state: State) -> Players:
    players: Players = state.players
    return players


class PlayersController(Controller):
    path = "/players"
    tags = ["players"]

    @post(
        "/",
        operation_id="createPlayer",
        summary="Create a player; returns its player token",
        responses=problems(JSON_BODY, {422: ["invalid_name"]}, RATE_LIMITED, UNAVAILABLE),
    )
    async def create(self, data: CreatePlayer, state: State) -> PlayerCreatedOut:
        player_id, token = await _players(state).create(data.name)
        return PlayerCreatedOut(player_id=player_id, name=data.name.strip(), token=token)

    @delete(
        "/me",
        operation_id="revokePlayerToken",
        summary="Revoke the caller's player token (every token of this player is refused after)",
        guards=[guards.player],
        dependencies={"principal": Provide(provide_principal, sync_to_thread=False)},
        responses=problems(PARAMS, BEARER, UNAVAILABLE),
        status_code=204,
    )
    async def revoke(self, state: State, principal: Principal) -> None:
        assert principal.player_id is not None  # the guard checked it
        await _players(state).revoke(principal.player_id)

    @post(
        "/me/token",
        operation_id="refreshPlayerToken",
        summary="A fresh player token, signed with the newest key (for key rotation)",
        guards=[guards.player],
        dependencies={"principal": Provide(provide_principal, sync_to_thread=False)},
        responses=problems(PARAMS, BEARER, {404: ["not_found"]}, UNAVAILABLE),
        status_code=200,
    )
    async def refresh(self, state: State, principal: Principal) -> PlayerCreatedOut:
        assert principal.player_id is not None  # the guard checked it
        players = _players(state)
        name = await players.name(principal.player_id)
        return PlayerCreatedOut(
            player_id=principal.player_id, name=name, token=players.token(principal.player_id)
        )

    @get(
        "/{player_id:uuid}",
        operation_id="getPlayer",
        summary="A player's name and statistics",
        responses=problems(PARAMS, {404: ["not_found"]}, UNAVAILABLE),
    )
    async def get_player(self, player_id: uuid.UUID, state: State) -> PlayerOut:
        return await _players(state).get(player_id)
