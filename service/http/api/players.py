"""Players: create an identity, revoke its token, read a player's statistics, games and transcripts."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Literal

import msgspec
from litestar import Controller, MediaType, Response
from litestar.datastructures import State
from litestar.di import Provide
from litestar.openapi.datastructures import ResponseSpec
from litestar.params import QueryParameter

from domain.text import NAME_PATTERN
from service.app.auth import Principal
from service.app.erasure import Erasure
from service.app.games import GameService
from service.app.players import PlayerGameOut, PlayerOut, Players, player_transcript, seat_token
from service.app.ratings import Ratings
from service.config import Settings
from service.http import paging
from service.http.api import guards
from service.http.api.deps import AnyRequest, created_at, provide_principal
from service.http.api.erasure import ErasureOut
from service.http.api.lobby import SeatOut
from service.http.api.params import INT32_MAX, LOWER_BOUND_ZERO, SeatNumber
from service.http.api.problems import (
    BEARER,
    JSON_BODY,
    PARAMS,
    RATE_LIMITED,
    UNAVAILABLE,
    UNKNOWN_GAME,
    problems,
)
from service.http.fast.routes import delete, get, post
from service.http.paging import CURSOR_CODES, DEFAULT_LIMIT, LINK, Cursor, Limit, Offset


class CreatePlayer(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # A display name, not unique: 1 to 40 characters once trimmed.
    name: Annotated[
        str, msgspec.Meta(min_length=1, max_length=40, extra_json_schema={"pattern": NAME_PATTERN})
    ]


class PlayerCreatedOut(msgspec.Struct, frozen=True):
    player_id: uuid.UUID
    name: str
    token: str  # the player's credential: send it when joining a seat


class PlayerGames(msgspec.Struct, frozen=True):
    games: list[PlayerGameOut]  # newest first
    next: str | None  # the next page's URL (docs/api.md, "Pages"); None: the last page
    limit: int
    offset: int = 0  # deprecated with the `offset` parameter: always the one asked for


class PlayerGameKey(paging.Key, frozen=True, array_like=True):
    list: Literal["player_games"]
    created_at: datetime
    game_id: uuid.UUID


def _players(state: State) -> Players:
    players: Players = state.players
    return players


def _player_id(principal: Principal) -> uuid.UUID:
    assert principal.player_id is not None  # the player guard checked it
    return principal.player_id


class PlayersController(Controller):
    path = "/players"
    tags = ["players"]

    @post(
        "/",
        operation_id="createPlayer",
        summary="Create a player; returns its player token",
        responses=problems(JSON_BODY, {422: ["invalid_name"]}, RATE_LIMITED, UNAVAILABLE),
    )
    async def create(self, data: CreatePlayer, state: State) -> Response[PlayerCreatedOut]:
        player_id, token = await _players(state).create(data.name)
        out = PlayerCreatedOut(player_id=player_id, name=data.name.strip(), token=token)
        return created_at(out, f"/players/{player_id}")

    @delete(
        "/me",
        operation_id="revokePlayerToken",
        summary="Revoke the caller's player token; with erase=true, erase the player too",
        guards=[guards.player],
        dependencies={"principal": Provide(provide_principal, sync_to_thread=False)},
        responses={
            204: ResponseSpec(data_container=None, description="Revoked (without erase)"),
            **problems(PARAMS, BEARER, UNAVAILABLE),
        },
        status_code=200,
    )
    async def revoke(
        self,
        state: State,
        principal: Principal,
        erase: Annotated[
            bool,
            QueryParameter(
                description="Also erase the player (docs/erasure.md): their name and texts in every game"
                " become a pseudonym; their statistics stay with it. It cannot be undone."
            ),
        ] = False,
    ) -> Response[ErasureOut | None]:
        player_id = _player_id(principal)
        await _players(state).revoke(player_id)
        if not erase:
            return Response(None, status_code=204)
        erasure: Erasure = state.erasure
        done = await erasure.player(player_id)
        return Response(ErasureOut.of(done), status_code=200)

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
        player_id = _player_id(principal)
        players = _players(state)
        name = await players.name(player_id)
        return PlayerCreatedOut(player_id=player_id, name=name, token=players.token(player_id))

    @get(
        "/me/games",
        operation_id="listMyGames",
        summary="The games the caller (player token) holds a seat in, newest first",
        guards=[guards.player],
        dependencies={"principal": Provide(provide_principal, sync_to_thread=False)},
        responses=problems(PARAMS, {400: [*CURSOR_CODES, "invalid_offset"]}, BEARER, UNAVAILABLE),
        response_headers=[LINK],
    )
    async def my_games(
        self,
        state: State,
        principal: Principal,
        request: AnyRequest,
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
        offset: Offset = 0,
    ) -> Response[PlayerGames]:
        after = paging.decode(cursor, PlayerGameKey, offset=offset)
        key = (after.created_at, after.game_id) if after else None
        games, last = await _players(state).games(_player_id(principal), limit, key, offset)
        more = paging.next_page(request, PlayerGameKey("player_games", *last) if last else None, offset=None)
        return paging.page(PlayerGames(games=games, next=more, limit=limit, offset=offset), more)

    @post(
        "/me/games/{game_id:uuid}/seats/{seat:int}/token",
        operation_id="mySeatToken",
        summary="A new seat token for a seat the caller (player token) holds now",
        description="The way back to a seat whose token was lost (a closed tab): the new token "
        "acts for the seat as the join's did, until the seat is left.",
        guards=[guards.player],
        dependencies={"principal": Provide(provide_principal, sync_to_thread=False)},
        responses=problems(PARAMS, BEARER, {403: ["seat_not_held"]}, UNKNOWN_GAME, UNAVAILABLE),
        status_code=200,
    )
    async def my_seat_token(
        self, game_id: uuid.UUID, seat: SeatNumber, games: GameService, state: State, principal: Principal
    ) -> SeatOut:
        player_id = _player_id(principal)
        settings: Settings = state.settings
        token = await seat_token(games, state.keyring, settings.seat_token_lifetime, player_id, game_id, seat)
        return SeatOut(game_id=game_id, seat=seat, token=token, player_id=player_id)

    @get(
        "/me/games/{game_id:uuid}/transcript",
        operation_id="myGameTranscript",
        summary="The transcript of a seat the caller (player token) held, once the game is over",
        description="The same text as the seat's own transcript, whether or not its seat token "
        "has expired. `seat` picks one of the player's seats (default: its first).",
        guards=[guards.player],
        dependencies={"principal": Provide(provide_principal, sync_to_thread=False)},
        responses=problems(
            PARAMS,
            BEARER,
            {403: ["seat_not_held"]},
            UNKNOWN_GAME,
            {409: ["game_not_finished"]},
            UNAVAILABLE,
        ),
        media_type=MediaType.TEXT,
    )
    async def my_transcript(
        self,
        game_id: uuid.UUID,
        games: GameService,
        principal: Principal,
        seat: Annotated[
            int | None,
            QueryParameter(
                required=False,
                ge=0,
                le=INT32_MAX,
                schema_extra=LOWER_BOUND_ZERO,
                description="Which of the player's seats (default: its first)",
            ),
        ] = None,
    ) -> str:
        return await player_transcript(games, _player_id(principal), game_id, seat)

    @get(
        "/{player_id:uuid}",
        operation_id="getPlayer",
        summary="A player's name, statistics and ratings",
        description="Statistics and ratings as the public may know them: a game counts once its end "
        "is a spectator delay old, and a ruling that changed its result once the ruling is.",
        responses=problems(PARAMS, {404: ["not_found"]}, UNAVAILABLE),
    )
    async def get_player(self, player_id: uuid.UUID, state: State) -> PlayerOut:
        found = await _players(state).get(player_id)
        ratings: Ratings = state.ratings
        return msgspec.structs.replace(found, ratings=await ratings.of_player(player_id))
