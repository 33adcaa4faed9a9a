"""Playing: a seat's commands, its view and its events."""

from __future__ import annotations

import uuid
from typing import Annotated, Any

import msgspec
from litestar import Controller, Request, get, post
from litestar.di import Provide
from litestar.params import HeaderParameter, QueryParameter

from domain.viewers import Seat
from projections.envelopes import EventOut
from service.api.deps import SeatActor, SeatHolder, provide_seat_actor, provide_seat_holder
from service.games import CommandResult, GameService, SeatViewOut, seat_view


class PlayController(Controller):
    path = "/games/{game_id:uuid}/seats/{seat:int}"
    tags = ["play"]
    dependencies = {"holder": Provide(provide_seat_holder)}

    @post(
        "/commands",
        operation_id="sendCommand",
        summary="Send a command for this seat (the game's tagged union)",
        status_code=200,
        dependencies={"holder": Provide(provide_seat_actor)},
    )
    async def command(
        self,
        game_id: uuid.UUID,
        seat: int,
        request: Request[Any, Any, Any],
        games: GameService,
        holder: SeatActor,
        idempotency_key: Annotated[
            str | None,
            HeaderParameter(
                name="Idempotency-Key",
                required=False,
                max_length=200,
                description="A retried request with the same key returns the original result",
            ),
        ] = None,
        expected_version: Annotated[
            int | None,
            QueryParameter(
                name="expected_version",
                required=False,
                ge=0,
                description="Refuse with 409 unless the game is at this version",
            ),
        ] = None,
        with_view: Annotated[
            bool,
            QueryParameter(
                name="view",
                required=False,
                description="Also return this seat's view right after the command",
            ),
        ] = False,
    ) -> CommandResult:
        body = await request.body()
        result = await games.command(
            game_id,
            seat,
            body,
            idempotency_key=idempotency_key,
            expected_version=expected_version,
            holder=holder.principal.occupancy,
        )
        if with_view:  # saves the client the view request it would send next
            table = await games.load(game_id, cached_ok=True)
            result = msgspec.structs.replace(result, view=seat_view(game_id, table, seat))
        return result

    @get("/view", operation_id="getSeatView", summary="What this seat sees now, with its legal commands")
    async def view(self, game_id: uuid.UUID, seat: int, holder: SeatHolder) -> SeatViewOut:
        return seat_view(game_id, holder.table, seat)

    @get("/events", operation_id="getSeatEvents", summary="Events after a version, as this seat sees them")
    async def events(
        self,
        game_id: uuid.UUID,
        seat: int,
        games: GameService,
        holder: SeatHolder,
        after: Annotated[int, QueryParameter(name="after", ge=0)] = 0,
    ) -> list[EventOut]:
        return await games.events_for(game_id, Seat(seat), after)
