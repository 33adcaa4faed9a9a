"""Playing: a seat's commands, its view and its events."""

from __future__ import annotations

import base64
import uuid
from typing import Annotated, Any

from litestar import Controller, Response
from litestar.datastructures import ResponseHeader
from litestar.params import QueryParameter

from domain.viewers import Seat
from projections.envelopes import EventOut
from projections.seat_view import SeatViewOut, seat_view
from service.app import bodies
from service.app.games import CommandResult
from service.http import paging
from service.http.api import guards
from service.http.api.deps import AnyRequest, games_of, seat_holder
from service.http.api.params import (
    INT32_MAX,
    LOWER_BOUND_ZERO,
    AfterSeq,
    IdempotencyKey,
    MinVersion,
    PageLimit,
    SeatNumber,
)
from service.http.api.problems import (
    BEARER,
    JSON_BODY,
    KEYED,
    RATE_LIMITED,
    RULES,
    SEAT,
    UNAVAILABLE,
    UNKNOWN_GAME,
    problems,
)
from service.http.fast.lanes import lane, take_command, take_min_version
from service.http.fast.routes import get, post
from service.runtime.headers import header
from service.views.events import events_for

RECEIPT_HEADER = "Playlog-Receipt"


# The two handlers' bodies, shared with their lanes (service/http/fast/lanes.py): ``taken`` holds the
# query and header parameters.
async def send_command(
    request: AnyRequest, game_id: uuid.UUID, seat: int, taken: dict[str, Any]
) -> CommandResult:
    bodies.check_media_type(header(request.scope, b"content-type"))
    body = await request.body()
    games, holder = games_of(request), seat_holder(request)
    return await games.seats.command(
        game_id,
        seat,
        body,
        idempotency_key=taken["idempotency_key"],
        expected_version=taken["expected_version"],
        holder=holder.principal.occupancy,
        table=holder.table,
        view=taken["view"],  # saves the client the view request it would send next
    )


async def get_seat_view(request: AnyRequest, game_id: uuid.UUID, seat: int, _: dict[str, Any]) -> SeatViewOut:
    return seat_view(game_id, seat_holder(request).table, seat)


class PlayController(Controller):
    path = "/games/{game_id:uuid}/seats/{seat:int}"
    tags = ["play"]

    @post(
        "/commands",
        operation_id="sendCommand",
        responses=problems(
            SEAT,
            {400: ["invalid_expected_version", "invalid_view"]},
            KEYED,
            JSON_BODY,
            BEARER,
            UNKNOWN_GAME,
            {409: ["version_conflict", "game_under_incident", "game_not_started"]},
            {422: ["unknown_command"]},
            RULES,
            RATE_LIMITED,
            UNAVAILABLE,
        ),
        summary="Send a command for this seat (the game's tagged union)",
        status_code=200,
        guards=[guards.seat_actor],
        middleware=[lane(take_command, send_command)],
    )
    async def command(
        self,
        game_id: uuid.UUID,
        seat: SeatNumber,
        request: AnyRequest,
        idempotency_key: IdempotencyKey = None,
        expected_version: Annotated[
            int | None,
            QueryParameter(
                name="expected_version",
                required=False,
                ge=0,
                le=INT32_MAX,
                schema_extra=LOWER_BOUND_ZERO,
                description=(
                    "Refuse with 409 unless the game is at this version (in this seat's numbering);"
                    " a retry with a known Idempotency-Key gets its first answer instead"
                ),
            ),
        ] = None,
        view: Annotated[
            bool,
            QueryParameter(
                name="view",
                required=False,
                description="Also return this seat's view right after the command",
            ),
        ] = False,
    ) -> CommandResult:
        taken = {"idempotency_key": idempotency_key, "expected_version": expected_version, "view": view}
        return await send_command(request, game_id, seat, taken)

    @get(
        "/view",
        operation_id="getSeatView",
        summary="What this seat sees now, with its legal commands",
        guards=[guards.seat_holder],
        responses=problems(SEAT, {400: ["invalid_min_version"]}, BEARER, UNKNOWN_GAME, UNAVAILABLE),
        middleware=[lane(take_min_version, get_seat_view)],
    )
    async def view(
        self, game_id: uuid.UUID, seat: SeatNumber, request: AnyRequest, min_version: MinVersion = 0
    ) -> SeatViewOut:
        return await get_seat_view(request, game_id, seat, {"min_version": min_version})

    @get(
        "/events",
        operation_id="getSeatEvents",
        summary="Events after a version, as this seat sees them (`limit` at most)",
        guards=[guards.seat_holder],
        response_headers=[
            ResponseHeader(
                name=RECEIPT_HEADER,
                description=(
                    "The service's signed receipt of these events (docs/receipts.md), base64:"
                    " the seat's versions after..its own, their digest, a commitment to the head"
                ),
                documentation_only=True,
            ),
            paging.LINK,
        ],
        responses=problems(
            SEAT,
            {400: ["invalid_after", "invalid_limit", "invalid_min_version"]},
            BEARER,
            UNKNOWN_GAME,
            UNAVAILABLE,
        ),
    )
    async def events(
        self,
        game_id: uuid.UUID,
        seat: SeatNumber,
        request: AnyRequest,
        after: AfterSeq = 0,
        limit: PageLimit = None,
        min_version: MinVersion = 0,  # the guard reads it: the table it checks is at least that new
    ) -> Response[list[EventOut]]:
        events, receipt = await events_for(games_of(request), game_id, Seat(seat), after, limit)
        headers = {RECEIPT_HEADER: base64.b64encode(receipt.encode()).decode()} if receipt else {}
        if limit is not None and events and len(events) == limit:  # a full page: the next may hold more
            headers.update(paging.link(paging.next_url(request, after=events[-1].seq)))
        return Response(events, headers=headers)
