"""The lobby's use cases: create, join, start, leave (or concede), reveal a seed, act on a deadline.

Each is one table command through the one loop (service/app/loop.py). A lobby action's answer is
rebuilt from the log when its key is used again, so a replay gets the same answer (and token).
"""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from domain import registry
from domain.table import clock
from domain.table.commands import (
    ActOnDeadline,
    CreateGame,
    JoinSeat,
    LeaveSeat,
    RevealSeed,
    StartGame,
)
from domain.table.events import SeatJoined
from projections import table as tables
from projections.table import Table
from service.app.errors import ServiceError
from service.app.idempotency import created_game_id, keyed
from service.app.loop import Executed, GameLoop, key_arguments
from service.runtime.log import get_logger

log = get_logger("playlog.commands")


class Lobbied(msgspec.Struct, frozen=True):
    """A lobby action's answer: the table right after it, and where and when its first event was
    recorded (a token issued for it is named and dated by that event: a replay issues the same)."""

    table: Table
    seq: int
    recorded_at: float


class LobbyActions:
    """The lobby's use cases, each one table command through the one loop."""

    def __init__(self, loop: GameLoop) -> None:
        self.loop = loop

    async def create(
        self,
        kind: str,
        options: dict[str, Any],
        *,
        public: bool,
        spectator_delay: float | None,
        timeouts_to_remove: int | None = None,
        lobby_timeout: float | None = None,
        rated: bool = True,
        key: str | None = None,
        body: bytes = b"",
    ) -> tuple[uuid.UUID, Lobbied]:
        """A new game (with ``key``: the one the first create with that key and ``body`` made);
        the clock's settings None: the defaults (domain/table/clock.py)."""
        game_id = created_game_id(key) if key is not None else uuid.uuid4()
        asked = CreateGame(
            kind=kind,
            options=options,
            public=public,
            spectator_delay=spectator_delay,
            timeouts_to_remove=timeouts_to_remove,
            lobby_timeout=lobby_timeout,
            rated=rated,
        )
        command = clock.with_defaults(registry.of(kind).game, asked)
        keys = keyed(key, "host", "createGame", (), body)
        done = await self.loop.execute(game_id, command, "lobby", **key_arguments(keys))
        return game_id, (await self._answered(game_id, done))[0]

    async def join(
        self,
        game_id: uuid.UUID,
        name: str,
        *,
        player: str | None = None,
        key: str | None = None,
        body: bytes = b"",
        seed_commitment: str | None = None,
    ) -> tuple[int, Lobbied]:
        """Take the first free seat for ``name`` (and ``player``, unless a guest); the table after
        holds the new occupancy id, which the seat token carries. With ``key``: the seat the
        first join with that key (and caller and ``body``) took, as it was taken."""
        caller = f"player:{player}" if player else "guest"
        if player and key is not None:  # a player's token reaches every game
            await self.loop.load(game_id, cached_ok=True)  # a key sent for no game binds to none
            await self.loop.bind_key(caller, key, game_id)
        keys = keyed(key, caller, "joinGame", (game_id,), body)
        command = JoinSeat(
            name=name, occupancy=uuid.uuid4().hex, player=player, seed_commitment=seed_commitment
        )
        done = await self.loop.execute(game_id, command, "lobby", **key_arguments(keys))
        answer, joined = await self._answered(game_id, done)
        assert isinstance(joined, SeatJoined)
        return joined.seat, answer

    async def start(self, game_id: uuid.UUID, *, key: str | None = None, by: str = "host") -> Table:
        """The table right after the start (a second start with ``key``: the first one's);
        ``by``: who starts it, the host or a seat (``seat:N``)."""
        keys = keyed(key, by, "startGame", (game_id,), b"")
        # Without a key, two starts racing (the host's and a seat's too) still append once.
        ids = key_arguments(keys) if keys is not None else {"command_id": "start"}
        done = await self.loop.execute(game_id, StartGame(), by, **ids)
        return (await self._answered(game_id, done))[0].table

    async def _answered(self, game_id: uuid.UUID, done: Executed) -> tuple[Lobbied, Any]:
        """A lobby action's answer and its first event; a replay's as the action left the game."""
        first = done.stored[0]
        if done.duplicate:
            table = await self.loop.tables.fold(game_id, done.stored[-1].seq, keep=False)
            assert table is not None
            event = tables.decode(table.kind, first.type, first.data, first.schema_version)
        else:
            table, event = done.table, done.events[0]
        return Lobbied(table=table, seq=first.seq, recorded_at=first.recorded_at.timestamp()), event

    async def leave(self, game_id: uuid.UUID, seat: int, *, holder: str | None = None) -> Table:
        """Leave the lobby before the start; once the game runs, concede through its rules."""
        return (await self.loop.execute(game_id, LeaveSeat(seat=seat, holder=holder), f"seat:{seat}")).table

    async def reveal_seed(self, game_id: uuid.UUID, seat: int, seed: str, *, holder: str | None) -> Table:
        """The seat's committed seed revealed (domain/table/rules.py says when it may be)."""
        command = RevealSeed(seat=seat, seed=seed, holder=holder)
        return (await self.loop.execute(game_id, command, f"seat:{seat}")).table

    async def act_on_deadline(self, game_id: uuid.UUID) -> bool:
        """Send the game's deadline command if its deadline has passed; True if appended."""
        table = await self.loop.load(game_id)
        try:
            done = await self.loop.execute(
                game_id, ActOnDeadline(), "server", command_id=f"deadline:{table.version}"
            )
        except ServiceError as exc:
            if exc.code != "version_conflict":
                raise
            self.loop.forget(game_id)
            return False
        if not done.events:
            return False
        log.info("deadline", game_id=str(game_id), command=type(done.events[0]).__name__)
        return True
