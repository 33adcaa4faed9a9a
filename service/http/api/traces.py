"""A seat's match trace of a finished game (projections/traces.py)."""

from __future__ import annotations

import uuid

import msgspec
from litestar import Controller, Response
from litestar.di import Provide

from projections.traces import trace
from service.app import audit as audits
from service.app.errors import ServiceError
from service.app.games import GameService
from service.http.api import guards
from service.http.api.deps import SeatHolder, provide_seat_holder
from service.http.api.params import SeatNumber
from service.http.api.problems import BEARER, SEAT, UNAVAILABLE, UNKNOWN_GAME, problems
from service.http.fast.routes import get

NDJSON = "application/x-ndjson"


class SeatTraceController(Controller):
    path = "/games/{game_id:uuid}/seats/{seat:int}"
    tags = ["play"]
    guards = [guards.seat_holder]
    dependencies = {"holder": Provide(provide_seat_holder, sync_to_thread=False)}

    @get(
        "/trace",
        operation_id="seatTrace",
        summary="This seat's match trace of a finished game: each event it saw, its view and moves after it",
        description=(
            'JSON Lines (docs/agents.md, "Match traces"): a header, then one line per event the'
            " seat saw, in its own numbering, with the seat's view right after it and its moves"
            " then, and whether the event came from the seat's own command. `playlog"
            " verify-trace EXPORT TRACE` checks it against the game's export."
        ),
        responses=problems(SEAT, BEARER, UNKNOWN_GAME, {409: ["game_not_finished"]}, UNAVAILABLE),
        media_type=NDJSON,
    )
    async def seat_trace(
        self, game_id: uuid.UUID, seat: SeatNumber, games: GameService, holder: SeatHolder
    ) -> Response[bytes]:
        steps = await audits.replayed(games, game_id)
        if steps[-1].table.status != "finished":
            raise ServiceError(409, "game_not_finished", "Traces are given once the game is over.")
        lines = trace(str(game_id), steps, seat)
        body = b"".join(msgspec.json.encode(line) + b"\n" for line in lines)
        return Response(
            body,
            media_type=NDJSON,
            headers={"Content-Disposition": f'attachment; filename="{game_id}-seat{seat}.trace.jsonl"'},
        )
