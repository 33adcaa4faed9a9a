"""Dependencies shared by the controllers: the services and the caller's token."""

from __future__ import annotations

from typing import Annotated

from litestar.datastructures import State
from litestar.params import HeaderParameter

from service.auth import Principal, read_bearer
from service.games import GameService

AuthorizationHeader = Annotated[
    str | None, HeaderParameter(name="Authorization", required=False, description="Bearer <token>")
]


def provide_games(state: State) -> GameService:
    games: GameService = state.games
    return games


# The principal providers take ``games`` only to come after it: Litestar resolves the
# dependencies of one level concurrently, in an anyio task group per request, which costs more
# than reading a token.
def provide_principal(
    state: State, games: GameService, authorization: AuthorizationHeader = None
) -> Principal:
    return read_bearer(authorization, state.secret)


def provide_optional_principal(
    state: State, games: GameService, authorization: AuthorizationHeader = None
) -> Principal | None:
    if not authorization:
        return None
    return read_bearer(authorization, state.secret)
