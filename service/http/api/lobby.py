"""The lobby: create a game, join a seat, start, leave."""

from __future__ import annotations

import dataclasses
import uuid
from datetime import datetime
from typing import Annotated, Any, Literal

import msgspec
from litestar import Controller, Response
from litestar.datastructures import State
from litestar.di import Provide
from litestar.params import QueryParameter

from domain.table.commands import (
    DEFAULT_TIMEOUTS_TO_REMOVE,
    MAX_LOBBY_TIMEOUT,
    MAX_SPECTATOR_DELAY,
    MAX_TIMEOUTS_TO_REMOVE,
    PUBLIC_LOBBY_TIMEOUT,
)
from domain.text import NAME_PATTERN
from service.app import auth, computer_players, idempotency
from service.app.auth import Principal
from service.app.errors import ServiceError
from service.app.games import GameService, Lobbied
from service.app.listing import ListedGame, ListedStatus, Listings, listing_query
from service.config import Settings
from service.http import paging
from service.http.api import guards
from service.http.api.deps import (
    AnyRequest,
    SeatHolder,
    created_at,
    provide_principal,
    provide_principal_if_sent,
    provide_seat_holder,
)
from service.http.api.params import IdempotencyKey, SeatNumber
from service.http.api.problems import (
    BEARER,
    JSON_BODY,
    KEYED,
    PARAMS,
    PRIVATE,
    RATE_LIMITED,
    RULES,
    SEAT,
    UNAVAILABLE,
    UNKNOWN_GAME,
    problems,
)
from service.http.fast.routes import delete, get, post
from service.http.paging import CURSOR_CODES, DEFAULT_LIMIT, LINK, Cursor, Limit, Offset
from service.views.spectators import Spectators
from service.views.summary import GameSummary, summary

KIND_PATTERN = r"^[a-z0-9_]+$"


class CreateGame(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    kind: Annotated[str, msgspec.Meta(min_length=1, max_length=64, pattern=KIND_PATTERN)]
    # Typed per kind in the document, which requires it (every game has a required option);
    # missing, the game refuses it: 422 invalid_options.
    options: dict[str, Any] = {}
    public: bool = True
    spectator_delay: Annotated[float, msgspec.Meta(ge=0, le=MAX_SPECTATOR_DELAY)] | None = None
    timeouts_to_remove: Annotated[
        Annotated[int, msgspec.Meta(ge=0, le=MAX_TIMEOUTS_TO_REMOVE)] | None,
        msgspec.Meta(
            description=(
                "A seat whose time runs out this many times in a row is removed from the game (it"
                f" concedes) so that the others play on: 0 never, absent or null {DEFAULT_TIMEOUTS_TO_REMOVE}"
                f" (0 to {MAX_TIMEOUTS_TO_REMOVE}). The time per move is the game option `decision_timeout`"
                " (a public game gets its game's default unless the option is given; null turns it off)."
            )
        ),
    ] = None
    lobby_timeout: Annotated[
        Annotated[float, msgspec.Meta(ge=0, le=MAX_LOBBY_TIMEOUT)] | None,
        msgspec.Meta(
            description=(
                "Seconds after its creation at which a lobby not started closes (`lobby.closed`): 0"
                f" never, absent or null {PUBLIC_LOBBY_TIMEOUT:g} for a public game and never for a"
                f" private one (0 to {MAX_LOBBY_TIMEOUT:g})."
            )
        ),
    ] = None
    rated: bool = True  # counts towards the players' ratings (a public game only: docs/api.md, "Ratings")


class GameListing(msgspec.Struct, frozen=True):
    games: list[ListedGame]
    next: str | None  # the next page's URL (docs/api.md, "Pages"); None: the last page
    limit: int
    offset: int = 0  # deprecated with the `offset` parameter: always the one asked for


class ListingKey(paging.Key, frozen=True, array_like=True):
    list: Literal["games"]
    created_at: datetime
    game_id: uuid.UUID


class GameCreatedOut(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    kind: str
    seats: int
    host_token: str


Name = Annotated[str, msgspec.Meta(min_length=1, max_length=40, extra_json_schema={"pattern": NAME_PATTERN})]


Hex64 = Annotated[str, msgspec.Meta(pattern="^[0-9a-f]{64}$")]


class JoinSeat(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    # A guest's name cannot be required by the schema: whether a player token is sent decides.
    name: Annotated[
        Name | None,
        msgspec.Meta(
            description=(
                "The seat's display name (1 to 40 characters once trimmed). Required of a guest"
                " (no player token: 422 invalid_name without it); a player joins under its own"
                " name when it is absent or null."
            )
        ),
    ] = None
    seed_commitment: Annotated[
        Hex64 | None,
        msgspec.Meta(
            description=(
                'hex(SHA-256("playlog/seat-seed/v1" 0x00 seed)) of a 32-byte seed this seat'
                " contributes to the game's randomness, revealed once every seat is taken"
                " (revealSeed; docs/export-format.md). 64 lower-case hex digits, or null."
            )
        ),
    ] = None


class SeedReveal(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    seed: Annotated[
        Hex64,
        msgspec.Meta(description="The 32-byte seed committed at the join, as 64 lower-case hex digits."),
    ]


class SeatOut(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    seat: int
    token: str
    player_id: uuid.UUID | None = None  # None: joined as a guest (no statistics)
    claim: Annotated[
        str | None,
        msgspec.Meta(
            description="Keep it: with it and the name you joined as, you can show later that this seat was"
            " yours, even once you are erased (docs/erasure.md). 64 hex digits; the service does not keep it."
        ),
    ] = None


def _token(state: State, principal: Principal, answer: Lobbied, game_id: uuid.UUID, lifetime: float) -> str:
    """The token a lobby answer carries, named and dated by the event that made the answer: a
    replay re-issues the very same token from the log (no token is stored), expiring as the first."""
    named = dataclasses.replace(principal, token_id=idempotency.token_id(game_id, answer.seq))
    # Dated a second early: a database clock a little ahead of this instance's never dates a
    # token in the future, which verifying would refuse (iat).
    return auth.issue(state.keyring, named, lifetime, now=int(answer.recorded_at) - 1)


class LobbyController(Controller):
    path = "/games"
    tags = ["lobby"]

    @get(
        "/",
        operation_id="listGames",
        responses=problems(
            {400: ["invalid_status", "invalid_kind", *CURSOR_CODES, "invalid_offset", "invalid_request"]},
            UNAVAILABLE,
        ),
        response_headers=[LINK],
        summary="Public games, newest first, as spectators may see them (spectator delay applied)",
    )
    async def list_games(
        self,
        state: State,
        request: AnyRequest,
        status: ListedStatus | None = None,
        kind: Annotated[str | None, QueryParameter(max_length=64, pattern=KIND_PATTERN)] = None,
        limit: Limit = DEFAULT_LIMIT,
        cursor: Cursor = None,
        offset: Offset = 0,
    ) -> Response[GameListing]:
        listings: Listings = state.listings
        after = paging.decode(cursor, ListingKey, offset=offset)
        key = (after.created_at, after.game_id) if after else None
        listed = await listings.read(listing_query(status, kind, limit, key, offset))
        last = ListingKey("games", *listed.last) if listed.last else None
        more = paging.next_page(request, last, offset=None)
        return paging.page(GameListing(games=listed.games, next=more, limit=limit, offset=offset), more)

    @post(
        "/",
        operation_id="createGame",
        summary="Create a game; returns its host token",
        responses=problems(
            JSON_BODY,
            KEYED,
            {
                404: ["unknown_game_kind"],
                422: ["invalid_options", "invalid_spectator_delay", "invalid_clock"],
            },
            RATE_LIMITED,
            UNAVAILABLE,
        ),
    )
    async def create(
        self, data: CreateGame, games: GameService, state: State, idempotency_key: IdempotencyKey = None
    ) -> Response[GameCreatedOut]:
        game_id, created = await games.lobby.create(
            data.kind,
            data.options,
            public=data.public,
            spectator_delay=data.spectator_delay,
            timeouts_to_remove=data.timeouts_to_remove,
            lobby_timeout=data.lobby_timeout,
            rated=data.rated,
            key=idempotency_key,
            body=msgspec.json.encode(data),
        )
        settings: Settings = state.settings
        host = Principal(role="host", game_id=game_id)
        token = _token(state, host, created, game_id, settings.host_token_lifetime)
        table = created.table
        out = GameCreatedOut(game_id=game_id, kind=table.kind, seats=len(table.seats), host_token=token)
        return created_at(out, f"/games/{game_id}")

    @get(
        "/{game_id:uuid}",
        operation_id="getGame",
        summary="A game's public summary",
        description=(
            "Live to the game's host, the holders of its seats and moderators (with their token);"
            " to anyone else only a public game, as its spectators see it (spectator_delay applied)."
        ),
        guards=[guards.bearer_if_sent],
        dependencies={"principal": Provide(provide_principal_if_sent, sync_to_thread=False)},
        responses=problems(PARAMS, BEARER, PRIVATE, UNKNOWN_GAME, UNAVAILABLE),
    )
    async def get_game(self, game_id: uuid.UUID, state: State, principal: Principal | None) -> GameSummary:
        spectators: Spectators = state.spectators
        return summary(game_id, await spectators.shown_to(game_id, principal))

    @post(
        "/{game_id:uuid}/seats",
        operation_id="joinGame",
        summary="Take a free seat (with a player token: as that player; without: as a guest)",
        guards=[guards.player_or_guest],
        dependencies={"principal": Provide(provide_principal_if_sent, sync_to_thread=False)},
        responses=problems(
            JSON_BODY,
            UNKNOWN_GAME,
            BEARER,
            {
                409: [
                    "game_already_started",
                    "lobby_closed",
                    "game_full",
                    "version_conflict",
                    "game_under_incident",
                ],
                422: ["invalid_name"],
            },
            KEYED,
            RATE_LIMITED,
            UNAVAILABLE,
        ),
    )
    async def join(
        self,
        game_id: uuid.UUID,
        data: JoinSeat,
        games: GameService,
        state: State,
        principal: Principal | None,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[SeatOut]:
        player_id = principal.player_id if principal is not None else None
        name = data.name
        if name is None:
            if player_id is None:
                raise ServiceError(422, "invalid_name", "A guest joins with a display name.")
            name = await state.players.name(player_id)
        if computer_players.kept_name(name):
            raise ServiceError(
                422, "invalid_name", 'Names that start with "Computer (" are kept for computer players.'
            )
        seat, joined = await games.lobby.join(
            game_id,
            name,
            player=str(player_id) if player_id else None,
            key=idempotency_key,
            body=msgspec.json.encode(data),
            seed_commitment=data.seed_commitment,
        )
        occupancy = joined.table.occupancies[seat] or ""
        settings: Settings = state.settings
        holder = Principal(role="seat", game_id=game_id, seat=seat, occupancy=occupancy)
        token = _token(state, holder, joined, game_id, settings.seat_token_lifetime)
        claim = games.claim(game_id, occupancy).hex()
        out = SeatOut(game_id=game_id, seat=seat, token=token, player_id=player_id, claim=claim)
        return created_at(out, f"/games/{game_id}/seats/{seat}/view")

    @post(
        "/{game_id:uuid}/start",
        operation_id="startGame",
        responses=problems(
            PARAMS,
            BEARER,
            UNKNOWN_GAME,
            {
                409: [
                    "game_already_started",
                    "lobby_closed",
                    "seats_not_filled",
                    "version_conflict",
                    "game_under_incident",
                ]
            },
            KEYED,
            UNAVAILABLE,
        ),
        summary="Start the game (every seat taken): the host, or any seated player",
        description=(
            "With the host token, or the token of a seat of this game: a host who left before the"
            " start strands nobody, since any seated player may start once every seat is taken."
        ),
        guards=[guards.host_or_seat],
        dependencies={"principal": Provide(provide_principal, sync_to_thread=False)},
        status_code=200,
    )
    async def start(
        self,
        game_id: uuid.UUID,
        games: GameService,
        principal: Principal,
        idempotency_key: IdempotencyKey = None,
    ) -> GameSummary:
        by = idempotency.seat_caller(principal.seat) if principal.seat is not None else "host"
        return summary(game_id, await games.lobby.start(game_id, key=idempotency_key, by=by))

    @delete(
        "/{game_id:uuid}/seats/{seat:int}",
        operation_id="leaveGame",
        responses=problems(
            SEAT,
            BEARER,
            UNKNOWN_GAME,
            {
                409: [
                    "game_already_started",
                    "cannot_leave",
                    "seeds_revealed",
                    "version_conflict",
                    "game_under_incident",
                ]
            },
            RULES,
            UNAVAILABLE,
        ),
        summary="Leave a seat before the game starts, or concede once it runs",
        guards=[guards.seat_actor],
        dependencies={"holder": Provide(provide_seat_holder, sync_to_thread=False)},
        status_code=200,
    )
    async def leave(
        self, game_id: uuid.UUID, seat: SeatNumber, games: GameService, holder: SeatHolder
    ) -> GameSummary:
        return summary(game_id, await games.lobby.leave(game_id, seat, holder=holder.principal.occupancy))

    @post(
        "/{game_id:uuid}/seats/{seat:int}/seed",
        operation_id="revealSeed",
        responses=problems(
            SEAT,
            JSON_BODY,
            BEARER,
            UNKNOWN_GAME,
            {
                409: [
                    "game_already_started",
                    "seats_not_filled",
                    "seed_already_revealed",
                    "no_seed_commitment",
                    "version_conflict",
                    "game_under_incident",
                ],
                422: ["seed_mismatch"],
            },
            UNAVAILABLE,
        ),
        summary="Reveal the seed this seat committed to when joining (every seat taken, before the start)",
        guards=[guards.seat_actor],
        dependencies={"holder": Provide(provide_seat_holder, sync_to_thread=False)},
        status_code=200,
    )
    async def reveal_seed(
        self, game_id: uuid.UUID, seat: SeatNumber, data: SeedReveal, games: GameService, holder: SeatHolder
    ) -> GameSummary:
        table = await games.lobby.reveal_seed(game_id, seat, data.seed, holder=holder.principal.occupancy)
        return summary(game_id, table)
