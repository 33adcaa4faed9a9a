"""Dependencies shared by the controllers: the services, and what the route's guard checked.

Who may call a route is declared on the route by its guard (service/http/api/guards.py); the guard
leaves the caller's principal, and for a seat the table it checked, in the request's state, and
these hand them to the handler (the seat's table saves the handler a fold).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, TypeVar

from litestar import Request, Response
from litestar.datastructures import State

from projections.table import Table
from service.app.auth import Principal
from service.app.games import GameService
from service.http.fast.responses import AppResponse

AnyRequest = Request[Any, Any, Any]
T = TypeVar("T")


def created_at(content: T, location: str) -> Response[T]:
    """A 201's answer, with ``Location``: where what it created is read (RFC 9110, 10.2.2). A
    retry with the same Idempotency-Key gets the same answer, so the same place."""
    return AppResponse(content, status_code=201, headers={"Location": location})


def provide_games(state: State) -> GameService:
    games: GameService = state.games
    return games


# The providers below take ``games`` only to come after it: Litestar resolves the dependencies of
# one level concurrently, in an anyio task group per request, which costs more than the read.
def provide_principal(request: AnyRequest, games: GameService) -> Principal:
    principal: Principal = request.state.principal
    return principal


def provide_principal_if_sent(request: AnyRequest, games: GameService) -> Principal | None:
    principal: Principal | None = request.state.principal
    return principal


@dataclass(frozen=True)
class SeatHolder:
    """A seat token and the table its guard took: ``seat_holder`` checked its occupancy holds the
    seat on it; after ``seat_actor`` the rules check that, on the table the change is decided on."""

    principal: Principal
    table: Table


def provide_seat_holder(request: AnyRequest, games: GameService) -> SeatHolder:
    return seat_holder(request)


# The hottest routes (a seat's command and view) read these straight off the request: resolving a
# dependency costs a signature model and a task group per request, more than the handler's own work.
def seat_holder(request: AnyRequest) -> SeatHolder:
    state = request.scope["state"]
    return SeatHolder(state["principal"], state["table"])


def games_of(request: AnyRequest) -> GameService:
    games: GameService = request.scope["litestar_app"].state.games
    return games
