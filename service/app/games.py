"""The game service: the lobby's and the seats' use cases over the one loop, and a game's reads.

- service/app/loop.py: loading (the one cache, then the log's tail) and ``execute``, the one loop
- service/app/lobby.py: create, join, start, leave, reveal a seed, act on a deadline
- service/app/seat_commands.py: a seat's command and its answer, a seat's view
- here: a game's reads that are not a viewer's answer (when it ended) and a seat's events
- service/views/: what each viewer is shown (the spectators' delayed state, a game's summary)
"""

from __future__ import annotations

import dataclasses
import uuid

from domain.viewers import Seat, Viewer
from projections import table as tables
from projections.envelopes import EventOut, envelopes
from projections.numbering import private_seat, same_for_everyone, sees
from projections.table import Table
from service.app.auth import Principal
from service.app.legacy_tokens import bound
from service.app.lobby import Lobbied, LobbyActions
from service.app.loop import Executed
from service.app.seat_commands import CommandResult, SeatCommands, SeatViewOut, seat_view

__all__ = ["CommandResult", "Executed", "GameService", "Lobbied", "SeatViewOut", "seat_view"]


class GameService(LobbyActions, SeatCommands):
    """Every use case of a game (the lobby's, the seats'), and a seat's events."""

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

    async def events_for(
        self, game_id: uuid.UUID, viewer: Viewer, after: int = 0, limit: int | None = None
    ) -> tuple[list[EventOut], str | None]:
        """The events ``viewer`` may see after its number ``after`` (projections/numbering), at
        most ``limit`` of them, and, for a seat, the signed receipt of them (docs/receipts.md)."""
        table = await self.load(game_id)
        if same_for_everyone(table) and after <= table.version:
            # Nothing up to ``after`` is hidden from anyone: numbers and seqs agree so far.
            stored = await self.store.read(game_id, after_seq=after)
            before = after
        else:
            stored = await self.store.read(game_id)
            before = 0
        items = [
            (s.seq, s.recorded_at.timestamp(), tables.decode(table.kind, s.type, s.data, s.schema_version))
            for s in stored
        ]
        shown = [e for e in envelopes(table, items, viewer, before) if e.seq > after]
        cut = limit is not None and len(shown) > limit
        shown = shown[:limit]
        if self.receipts is None or not isinstance(viewer, Seat):
            return shown, None
        # The receipt commits to the head at the last event the seat may know of, never a later
        # one: two reads at one version of the seat get one receipt, whatever was hidden since.
        decider = table.decider
        seen = [
            s for s, item in zip(stored, items, strict=True) if sees(private_seat(decider, item[2]), viewer)
        ]
        if cut:  # a page: the receipt vouches for what it holds, up to its last event
            seen = seen[: shown[-1].seq - before]
        last = before + len(seen)
        if not seen and before == after > 0:
            seen = await self.store.read(game_id, after - 1, after)  # the event at its number
        if last < after or not seen:
            return shown, None  # asked from beyond the seat's version: nothing to vouch for
        events = [(e.seq, e.type, e.data) for e in shown]
        return shown, self.receipts.sign(game_id, viewer.index, (after, last), events, seen[-1].hash)
