"""Streams (SSE) for a seat and for spectators, and the spectators' delayed snapshot."""

from __future__ import annotations

import time
import uuid
from typing import Annotated, Any

import msgspec
from litestar import Controller, get
from litestar.datastructures import State
from litestar.di import Provide
from litestar.params import HeaderParameter
from litestar.response import ServerSentEvent

from domain.viewers import SPECTATOR, Seat
from projections import table as tables
from projections.disputes import RuledOutcome, ruled_outcome
from projections.numbering import version_for
from projections.spectator import released_by
from service.app.errors import ServiceError
from service.app.games import GameService
from service.http.api import guards
from service.http.api.deps import SeatHolder, provide_seat_holder
from service.http.api.params import INT32_MAX, AfterSeq, MinVersion, SeatNumber
from service.http.api.problems import (
    BEARER,
    PARAMS,
    PRIVATE,
    RESUME,
    SEAT,
    STREAM,
    UNAVAILABLE,
    UNKNOWN_GAME,
    problems,
)
from service.http.fast.sse import EventStream
from service.streams.event_streams import event_stream

LastEventId = Annotated[
    str,
    HeaderParameter(
        name="Last-Event-ID",
        required=False,
        pattern=r"^[0-9]{0,10}$",
        description="Resume after this id (the viewer's event number)",
    ),
]


def _resume_from(last_event_id: str, after: int) -> int:
    if last_event_id:  # digits only (the header's pattern); past the end of any log: nothing to send
        return min(int(last_event_id), INT32_MAX)
    return after


class SpectatorSnapshot(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    kind: str
    status: str
    version: int  # how many events a spectator may see up to the instant shown
    as_of: float  # the instant shown: now - spectator_delay
    spectator_delay: float
    seats: list[str | None]
    view: Any  # the game's spectator view (None before it starts)
    winners: list[int] | None = None
    ruled_outcome: RuledOutcome | None = None  # once an upheld verdict changed the outcome


async def spectated(games: GameService, game_id: uuid.UUID) -> tables.Table:
    table = await games.load(game_id, cached_ok=True)  # what it reads never changes but the version
    if not table.public:
        raise ServiceError(403, "private_game", "This game is private: it has no spectators.")
    return table


class PlayerStreamController(Controller):
    path = "/games/{game_id:uuid}/seats/{seat:int}"
    tags = ["play"]
    guards = [guards.seat_holder]
    dependencies = {"holder": Provide(provide_seat_holder, sync_to_thread=False)}

    @get(
        "/stream",
        operation_id="streamSeatEvents",
        summary="This seat's live event stream (SSE); it ends when the seat changes hands",
        media_type="text/event-stream",
        responses=problems(
            PARAMS, SEAT, RESUME, {400: ["invalid_min_version"]}, BEARER, UNKNOWN_GAME, STREAM, UNAVAILABLE
        ),
    )
    async def stream(
        self,
        game_id: uuid.UUID,
        seat: SeatNumber,
        holder: SeatHolder,
        games: GameService,
        state: State,
        last_event_id: LastEventId = "",
        after: AfterSeq = 0,
        min_version: MinVersion = 0,  # the guard reads it: the table it checks is at least that new
    ) -> ServerSentEvent:
        start = _resume_from(last_event_id, after)

        # The token's holder held the seat at this seq; the stream sends at least that far (with
        # ``min_version``, what its caller has seen of the game).
        checked = holder.table.version

        def seat_left(seq: int, event: Any) -> bool:  # the holder's rights end with its seat
            return seq > checked and isinstance(event, tables.SeatLeft) and event.seat == seat

        slots = state.streams
        slots.take()
        stream = event_stream(
            state.feeds, game_id, Seat(seat), start, ends=seat_left, needs=checked, receipts=games.receipts
        )
        return EventStream(stream, on_close=slots.give_back)


class SpectatorController(Controller):
    path = "/games/{game_id:uuid}/spectate"
    tags = ["spectate"]

    @get(
        "/stream",
        operation_id="streamSpectatorEvents",
        summary="The delayed public stream (SSE)",
        media_type="text/event-stream",
        responses=problems(PARAMS, RESUME, PRIVATE, UNKNOWN_GAME, STREAM, UNAVAILABLE),
    )
    async def stream(
        self,
        game_id: uuid.UUID,
        games: GameService,
        state: State,
        last_event_id: LastEventId = "",
        after: AfterSeq = 0,
    ) -> ServerSentEvent:
        table = await spectated(games, game_id)
        start = _resume_from(last_event_id, after)
        slots = state.streams
        slots.take()
        stream = event_stream(
            state.feeds, game_id, SPECTATOR, start, delay=table.spectator_delay, needs=table.version
        )
        return EventStream(stream, on_close=slots.give_back)

    @get(
        "/",
        operation_id="getSpectatorSnapshot",
        summary="The public state as of spectator_delay ago",
        responses=problems(PARAMS, PRIVATE, UNKNOWN_GAME, UNAVAILABLE),
    )
    async def snapshot(self, game_id: uuid.UUID, games: GameService) -> SpectatorSnapshot:
        table = await spectated(games, game_id)
        as_of = released_by(time.time(), table.spectator_delay)
        shown = await games.as_spectators_see(game_id, as_of, needs=table.version)
        started = shown.status != "open"
        return SpectatorSnapshot(
            game_id=game_id,
            kind=shown.kind,
            status=shown.status,
            version=version_for(shown, SPECTATOR),
            as_of=as_of,
            spectator_delay=shown.spectator_delay,
            seats=list(shown.seats),
            view=shown.decider.view(shown.state, SPECTATOR) if started else None,
            winners=list(shown.outcome.winners) if shown.outcome else None,
            ruled_outcome=ruled_outcome(shown),
        )
