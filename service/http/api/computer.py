"""Seating a computer player (service/app/computer_players.py plays its seat)."""

from __future__ import annotations

import uuid
from typing import Literal

import msgspec
from litestar import Controller, Response
from litestar.di import Provide

from service.app import computer_players
from service.app.auth import Principal
from service.app.games import GameService
from service.http.api import guards
from service.http.api.deps import created_at, provide_principal
from service.http.api.params import IdempotencyKey
from service.http.api.problems import BEARER, JSON_BODY, KEYED, UNAVAILABLE, UNKNOWN_GAME, problems
from service.http.fast.routes import post


class SeatComputerPlayer(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    level: Literal["easy", "normal"] = "normal"  # "easy": random legal moves; "normal": a careful player


class ComputerPlayerSeated(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    seat: int
    level: str
    name: str  # the name the table shows ("Computer (normal)")
    player_id: uuid.UUID  # the computer player's own id: its games and statistics gather under it


class ComputerPlayersController(Controller):
    path = "/games"
    tags = ["lobby"]

    @post(
        "/{game_id:uuid}/computer-players",
        operation_id="seatComputerPlayer",
        summary="Seat a computer player in a free seat (the host, or any seated player)",
        description=(
            "A computer player of the chosen `level` takes the first free seat, as a player of its"
            " own (`Computer (normal)`): it plays that seat through the seat's own use case, sees"
            " only that seat's view, and its moves carry receipts like anyone's. Sent again with the"
            " same `Idempotency-Key`: the seat the first one took."
        ),
        guards=[guards.host_or_seat],
        dependencies={"principal": Provide(provide_principal, sync_to_thread=False)},
        responses=problems(
            JSON_BODY,
            UNKNOWN_GAME,
            BEARER,
            {409: ["game_already_started", "game_full", "version_conflict", "game_under_incident"]},
            KEYED,
            UNAVAILABLE,
        ),
    )
    async def seat_computer_player(
        self,
        game_id: uuid.UUID,
        data: SeatComputerPlayer,
        games: GameService,
        principal: Principal,
        idempotency_key: IdempotencyKey = None,
    ) -> Response[ComputerPlayerSeated]:
        seat, _ = await computer_players.seat(
            games, game_id, data.level, key=idempotency_key, body=msgspec.json.encode(data)
        )
        out = ComputerPlayerSeated(
            game_id=game_id,
            seat=seat,
            level=data.level,
            name=computer_players.name(data.level),
            player_id=computer_players.PLAYERS[data.level],
        )
        return created_at(out, f"/games/{game_id}")
