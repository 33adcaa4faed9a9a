"""The game service: the one loop, the lobby's and the seats' use cases over it, and a game's reads.

- service/app/loop.py: loading (the one cache, then the log's tail) and ``execute``, the one loop
- service/app/lobby.py (``games.lobby``): create, join, start, leave, reveal a seed, act on a
  deadline
- service/app/seat_commands.py (``games.seats``): a seat's command and its answer
- here: a game's reads that are not a viewer's answer (when it ended, a legacy token's holder)
- service/views/: what each viewer is shown (the spectators' delayed state, a game's summary,
  the events as a viewer sees them)
"""

from __future__ import annotations

import dataclasses
import uuid
from functools import cached_property

from projections.table import Table
from service.app.auth import Principal
from service.app.legacy_tokens import bound
from service.app.lobby import Lobbied, LobbyActions
from service.app.loop import Executed, GameLoop
from service.app.seat_commands import CommandResult, SeatCommands

__all__ = ["CommandResult", "Executed", "GameService", "Lobbied"]


class GameService(GameLoop):
    """The one loop, with every use case of a game over it: the lobby's and the seats'."""

    @cached_property
    def lobby(self) -> LobbyActions:
        return LobbyActions(self)

    @cached_property
    def seats(self) -> SeatCommands:
        return SeatCommands(self)

    async def bind_legacy(self, principal: Principal) -> Principal:
        """An older release's seat token bound to the holder it was issued to, if that holder
        still holds the seat (service/app/legacy_tokens.py); else as it came (it holds no seat).
        Not remembered: such tokens are few and short-lived, and this is one indexed read."""
        if principal.game_id is None or principal.seat is None:
            return principal
        moves = await self.store.seat_moves(principal.game_id, principal.seat)
        return (
            dataclasses.replace(principal, occupancy="") if bound(moves, principal.issued_at) else principal
        )

    async def ended_at(self, game_id: uuid.UUID, table: Table) -> float | None:
        """When the game's last event, the one that finished it, was recorded (None: running)."""
        if table.finished_version is None:
            return None
        ended = await self.store.read(game_id, table.finished_version - 1, table.finished_version)
        return ended[0].recorded_at.timestamp() if ended else None

    async def ping(self) -> None:
        """Raise unless the database answers (readiness)."""
        await self.store.db.fetchval("SELECT 1")
