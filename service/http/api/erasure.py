"""Erasure (docs/erasure.md): what an erasure answers, and a guest's own, through its seat token.

A player erases themself with ``DELETE /players/me?erase=true`` (service/http/api/players.py).
"""

from __future__ import annotations

import uuid

import msgspec
from litestar import Controller
from litestar.datastructures import State
from litestar.di import Provide

from projections import personal
from service.app.erasure import Erased, Erasure
from service.app.errors import ServiceError
from service.http.api import guards
from service.http.api.deps import SeatHolder, provide_seat_holder
from service.http.api.params import SeatNumber
from service.http.api.problems import BEARER, SEAT, UNAVAILABLE, UNKNOWN_GAME, problems
from service.http.fast.routes import post


class ErasureOut(msgspec.Struct, frozen=True):
    """What an erasure did (docs/erasure.md)."""

    pseudonym: str  # how every game now shows the person
    games: list[uuid.UUID]  # the games whose texts were erased, each with a tombstone event
    texts: int  # texts erased: a name per seat taken, a dispute's reason, a reply (each once)
    kept: list[uuid.UUID]  # games played before erasure existed: their names stay (docs/erasure.md)

    @classmethod
    def of(cls, done: Erased) -> ErasureOut:
        return cls(pseudonym=done.pseudonym, games=done.games, texts=done.texts, kept=done.kept)


class SeatErasureController(Controller):
    path = "/games/{game_id:uuid}/seats/{seat:int}"
    tags = ["lobby"]

    @post(
        "/erase",
        operation_id="eraseSeat",
        summary="Erase the guest holding this seat: their name and texts in this game",
        guards=[guards.seat_holder],
        dependencies={"holder": Provide(provide_seat_holder, sync_to_thread=False)},
        responses=problems(
            SEAT, BEARER, UNKNOWN_GAME, {403: ["not_erasable"], 409: ["erase_as_player"]}, UNAVAILABLE
        ),
        status_code=200,
    )
    async def erase(
        self, game_id: uuid.UUID, seat: SeatNumber, state: State, holder: SeatHolder
    ) -> ErasureOut:
        if personal.holder(holder.table, seat).startswith("player:"):
            # A player's words are theirs in every game: erased together, by the player.
            raise ServiceError(
                409,
                "erase_as_player",
                "This seat is a player's: erase the player with DELETE /players/me?erase=true.",
            )
        erasure: Erasure = state.erasure
        return ErasureOut.of(await erasure.guest(game_id, holder.principal.occupancy))
