"""Dependencies shared by the controllers: the services, and who the caller's token says it is.

Who may call a route is declared once per route by the dependency it takes: ``SeatHolder`` (read
a seat: the token's occupancy must hold the seat now), ``SeatActor`` (the same, and the holder
has not conceded), ``Host``, ``Principal | None`` (audit: moderators are checked for revocation).
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass
from typing import Annotated

from litestar.datastructures import State
from litestar.params import HeaderParameter

from domain.table.rules import check_holder
from projections.table import Table
from service.api.params import SeatNumber
from service.auth import Principal, read_bearer
from service.config import Settings
from service.errors import ServiceError
from service.games import GameService

AuthorizationHeader = Annotated[
    str | None, HeaderParameter(name="Authorization", required=False, description="Bearer <token>")
]


def provide_games(state: State) -> GameService:
    games: GameService = state.games
    return games


def expired(what: str) -> ServiceError:
    return ServiceError(401, "token_expired", f"This {what} token has expired.")


async def verified(state: State, authorization: str | None) -> Principal:
    """The caller's principal: signature, expiry, and for moderators and players revocation."""
    principal = read_bearer(authorization, state.keyring)
    if principal.role == "moderator":
        await state.moderators.check(principal)
    elif principal.role == "player":
        await state.players.check(principal)
    return principal


# The principal providers take ``games`` only to come after it: Litestar resolves the
# dependencies of one level concurrently, in an anyio task group per request, which costs more
# than reading a token.
async def provide_principal(
    state: State, games: GameService, authorization: AuthorizationHeader = None
) -> Principal:
    return await verified(state, authorization)


async def provide_optional_principal(
    state: State, games: GameService, authorization: AuthorizationHeader = None
) -> Principal | None:
    if not authorization:
        return None
    return await verified(state, authorization)


@dataclass(frozen=True)
class SeatHolder:
    """A seat token whose occupancy holds the seat now, and the table it was checked against."""

    principal: Principal
    table: Table


class SeatActor(SeatHolder):
    """A seat holder that may still act (it has not conceded)."""


async def _seat_holder(
    state: State, games: GameService, game_id: uuid.UUID, seat: int, authorization: str | None
) -> SeatHolder:
    principal = read_bearer(authorization, state.keyring)
    if principal.role != "seat" or principal.game_id != game_id or principal.seat is None:
        raise ServiceError(403, "forbidden", "This token does not act for a seat of this game.")
    if principal.seat != seat:
        raise ServiceError(403, "forbidden", "This token acts for another seat.")
    table = await games.load(game_id, cached_ok=True)
    if table.status == "open":  # seats still change hands: ask the log, not the cache
        table = await games.load(game_id)
    check_holder(table, seat, principal.occupancy)
    if table.finished_version is not None:
        settings: Settings = state.settings
        ended = await games.store.read(game_id, table.finished_version - 1, table.finished_version)
        if ended and ended[0].recorded_at.timestamp() + settings.seat_token_after_game <= time.time():
            raise expired("seat")
    return SeatHolder(principal, table)


async def provide_seat_holder(
    state: State,
    games: GameService,
    game_id: uuid.UUID,
    seat: SeatNumber,
    authorization: AuthorizationHeader = None,
) -> SeatHolder:
    return await _seat_holder(state, games, game_id, seat, authorization)


async def provide_seat_actor(
    state: State,
    games: GameService,
    game_id: uuid.UUID,
    seat: SeatNumber,
    authorization: AuthorizationHeader = None,
) -> SeatActor:
    holder = await _seat_holder(state, games, game_id, seat, authorization)
    if seat in holder.table.conceded:
        raise ServiceError(403, "seat_conceded", "This seat has conceded: it can read, not act.")
    return SeatActor(holder.principal, holder.table)


@dataclass(frozen=True)
class Host:
    principal: Principal


async def provide_host(
    state: State, games: GameService, game_id: uuid.UUID, authorization: AuthorizationHeader = None
) -> Host:
    principal = read_bearer(authorization, state.keyring)
    if principal.role != "host" or principal.game_id != game_id:
        raise ServiceError(403, "forbidden", "Only the game's creator (host token) can do this.")
    table = await games.load(game_id, cached_ok=True)
    settings: Settings = state.settings
    if table.started_at is not None and table.started_at + settings.host_token_after_start <= time.time():
        raise expired("host")
    return Host(principal)
