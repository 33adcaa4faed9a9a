"""Who may call a route: Litestar guards, declared on the route (``guards=[...]``).

- ``seat_holder``: a seat token of this game and seat, whose occupancy holds the seat now (checked
  against the table, at least as new as the seat's ``min_version``: read your writes), not lapsed
  (a seat token lapses a while after its game ends);
- ``seat_actor``: a seat token of a seat that has not conceded (a conceded seat reads, it does not
  act), for a change the rules check its holder for (``seat_token_revoked``);
- ``host``: the host token of this game, until a margin after the start;
- ``host_or_seat``: the host token, or a seat holder's token of this game (starting: a host who
  left strands nobody, any seated player may start once every seat is taken);
- ``player``: a player token (not revoked);
- ``moderator``: a moderator token (not revoked);
- ``player_or_guest``: a player token, or none (a guest);
- ``auditor``: a moderator token; without one, anyone once a public game is over and its
  spectator delay has passed (projections/spectator decides);
- ``log_reader``: a game's log proofs: a moderator, anyone once the audit is, or a seat holder
  once the game is over if no event of it is hidden from anyone;
- ``bearer_if_sent``: anyone; a token sent must be valid (what it shows depends on who calls);
- ``bearer``: any valid token; the service decides what it grants (a dispute's seat, say, is
  checked against the game's log, which also knows the seats a token held before).

A guard leaves what it checked in the request's state, for the handler's dependencies
(service/http/api/deps.py): the principal, and for a seat the table it was checked against (the
handler reads that table rather than folding again). ``TOKEN`` says which guards need a token:
the OpenAPI document's security requirements are read from it (service/http/openapi.py).
"""

from __future__ import annotations

import time
import uuid
from typing import Any

from litestar.connection import ASGIConnection
from litestar.handlers.base import BaseRouteHandler
from litestar.types import Guard

from domain.table.rules import check_holder
from domain.viewers import Seat
from projections.numbering import same_for_everyone, version_for
from service.app.audit import open_to_anyone
from service.app.auth import Principal, read_bearer
from service.app.errors import ServiceError
from service.app.games import GameService
from service.app.legacy_tokens import UNBOUND
from service.config import Settings
from service.runtime.headers import header

Connection = ASGIConnection[Any, Any, Any, Any]


def expired(what: str) -> ServiceError:
    return ServiceError(401, "token_expired", f"This {what} token has expired.")


def _games(connection: Connection) -> GameService:
    games: GameService = connection.app.state.games
    return games


def _settings(connection: Connection) -> Settings:
    settings: Settings = connection.app.state.settings
    return settings


def _game_id(connection: Connection) -> uuid.UUID:
    game_id: uuid.UUID = connection.path_params["game_id"]
    return game_id


async def _bound(connection: Connection, principal: Principal) -> Principal:
    """An older release's seat token bound to its holder, if it still holds the seat."""
    if principal.occupancy != UNBOUND:
        return principal
    return await _games(connection).bind_legacy(principal)


async def _verified(connection: Connection) -> Principal:
    """The caller's principal: signature, expiry, and for moderators and players revocation."""
    principal = read_bearer(header(connection.scope, b"authorization"), connection.app.state.keyring)
    principal = await _bound(connection, principal)
    if principal.role == "moderator":
        await connection.app.state.moderators.check(principal)
    elif principal.role == "player":
        await connection.app.state.players.check(principal)
    connection.state.principal = principal
    return principal


async def _sent(connection: Connection) -> Principal | None:
    if not header(connection.scope, b"authorization"):
        connection.state.principal = None
        return None
    return await _verified(connection)


async def seat_holder(connection: Connection, _: BaseRouteHandler) -> None:
    await _holds(connection, int(connection.path_params["seat"]))


async def _holds(connection: Connection, seat: int) -> None:
    state = await _seat_token(connection, seat)
    check_holder(state["table"], seat, state["principal"].occupancy)


async def _seat_token(connection: Connection, seat: int) -> dict[str, Any]:
    """A seat token of this game and ``seat``, not lapsed, and the table to check its holder on;
    left in the request's state (returned: that state)."""
    principal = read_bearer(header(connection.scope, b"authorization"), connection.app.state.keyring)
    game_id = _game_id(connection)
    if principal.role != "seat" or principal.game_id != game_id or principal.seat is None:
        raise ServiceError(403, "forbidden", "This token does not act for a seat of this game.")
    if principal.seat != seat:
        raise ServiceError(403, "forbidden", "This token acts for another seat.")
    principal = await _bound(connection, principal)
    games = _games(connection)
    table = await games.load(game_id, cached_ok=True)
    # Ask the log, not the cache, while seats still change hands, and when the caller has seen
    # more of the game than this instance has heard of (read your writes: its own command, made
    # through another instance, whose notification is on its way).
    if table.status == "open" or version_for(table, Seat(seat)) < _seen(connection):
        table = await games.load(game_id)
    ended = await games.ended_at(game_id, table)
    if ended is not None and ended + _settings(connection).seat_token_after_game <= time.time():
        raise expired("seat")
    state: dict[str, Any] = connection.scope["state"]  # what ``connection.state`` wraps, without the wrapper
    state["principal"], state["table"] = principal, table
    return state


def _seen(connection: Connection) -> int:
    """The seat's version its caller has seen (``min_version``, docs/api.md "Read your writes");
    0 when absent or not a plain number, which the route's own parameter then refuses."""
    query: bytes = connection.scope["query_string"]
    if b"min_version=" not in query:
        return 0
    for pair in query.split(b"&"):
        name, _, value = pair.partition(b"=")
        if name == b"min_version" and value.isdigit() and len(value) <= 10:
            return int(value)
    return 0


async def seat_actor(connection: Connection, _: BaseRouteHandler) -> None:
    """A seat holder's change: its holder is checked by the rules, on the table the change is
    decided on (``seat_token_revoked``, as ``seat_holder`` refuses it), not twice."""
    seat = int(connection.path_params["seat"])
    if seat in (await _seat_token(connection, seat))["table"].conceded:
        # The retry of a command already applied (the concession itself, say) gets its result.
        key = header(connection.scope, b"idempotency-key")
        if key and await _games(connection).seats.applied(_game_id(connection), seat, key):
            return
        raise ServiceError(403, "seat_conceded", "This seat has conceded: it can read, not act.")


async def host(connection: Connection, _: BaseRouteHandler) -> None:
    principal = read_bearer(header(connection.scope, b"authorization"), connection.app.state.keyring)
    game_id = _game_id(connection)
    if principal.role != "host" or principal.game_id != game_id:
        raise ServiceError(403, "forbidden", "Only the game's creator (host token) can do this.")
    table = await _games(connection).load(game_id, cached_ok=True)
    margin = _settings(connection).host_token_after_start
    if table.started_at is not None and table.started_at + margin <= time.time():
        raise expired("host")
    connection.state.principal = principal


async def host_or_seat(connection: Connection, handler: BaseRouteHandler) -> None:
    principal = read_bearer(header(connection.scope, b"authorization"), connection.app.state.keyring)
    if principal.role == "seat" and principal.game_id == _game_id(connection):
        await _holds(connection, principal.seat if principal.seat is not None else -1)
        return
    await host(connection, handler)


async def player(connection: Connection, _: BaseRouteHandler) -> None:
    principal = await _verified(connection)
    if principal.role != "player" or principal.player_id is None:
        raise ServiceError(403, "forbidden", "A player token is required.")


async def moderator(connection: Connection, _: BaseRouteHandler) -> None:
    principal = await _verified(connection)
    if principal.role != "moderator":
        raise ServiceError(403, "moderator_only", "A moderator token is required.")


async def player_or_guest(connection: Connection, _: BaseRouteHandler) -> None:
    principal = await _sent(connection)
    if principal is not None and principal.role != "player":
        raise ServiceError(403, "forbidden", "Join with a player token, or with none as a guest.")


async def auditor(connection: Connection, _: BaseRouteHandler) -> None:
    principal = await _sent(connection)
    if principal is not None and principal.role == "moderator":
        return
    if await open_to_anyone(_games(connection), _game_id(connection)):
        return
    status = 401 if principal is None else 403
    raise ServiceError(
        status, "moderator_only", "A moderator token is required until this public game is over."
    )


async def log_reader(connection: Connection, _: BaseRouteHandler) -> None:
    """A game's heads in the transparency log: a moderator; anyone once the audit is open to
    anyone; a seat holder once the game is over, if no event of it is hidden from anyone (a
    head's seq would otherwise count events hidden from the seat, RULES 3; and the game's tag,
    given with its proofs, would let the seat follow the game's later leaves in the log's public
    entries while it runs)."""
    principal = await _sent(connection)
    if principal is not None and principal.role == "moderator":
        await _games(connection).load(_game_id(connection), cached_ok=True)  # 404 for no such game
        return
    if await open_to_anyone(_games(connection), _game_id(connection)):
        return
    if principal is not None and principal.role == "seat" and principal.game_id == _game_id(connection):
        await _holds(connection, principal.seat if principal.seat is not None else -1)
        table = connection.scope["state"]["table"]
        if table.status == "finished" and same_for_everyone(table):
            return
        raise ServiceError(
            403,
            "log_proof_hidden",
            "A seat reads its game's log proofs once the game is over, if no event of it is hidden"
            " from anyone: a head's seq would count hidden events, the game's tag its later leaves.",
        )
    status = 401 if principal is None else 403
    raise ServiceError(
        status, "moderator_only", "A moderator or a seat of this game may read its log proofs."
    )


async def bearer_if_sent(connection: Connection, _: BaseRouteHandler) -> None:
    await _sent(connection)


async def bearer(connection: Connection, _: BaseRouteHandler) -> None:
    await _verified(connection)


# Whether each guard needs a token (True) or takes one if sent (False).
TOKEN: dict[Guard, bool] = {
    seat_holder: True,
    seat_actor: True,
    host: True,
    host_or_seat: True,
    player: True,
    moderator: True,
    player_or_guest: False,
    auditor: False,
    log_reader: False,
    bearer_if_sent: False,
    bearer: True,
}
