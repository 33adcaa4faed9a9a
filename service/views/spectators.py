"""What spectators see of a game: its state folded forward as the spectator delay releases its
events, and the one summary built from it (the snapshot, the head's, ``GET /games/{id}``'s).

projections/spectator.py decides what is released; here each game's released state is kept,
so a request folds only the events released since the last one (none, mostly), and a game whose
every event is released is shown as the one cache of tables (service/app/tables.py) holds it.
"""

from __future__ import annotations

import uuid
from collections import OrderedDict
from typing import Any

import msgspec

from domain.viewers import SPECTATOR
from projections import table as tables
from projections.disputes import RuledOutcome, ruled_outcome
from projections.numbering import version_for
from projections.spectator import released_by, shown_at
from projections.table import Table
from service.app.auth import Principal
from service.app.errors import ServiceError, not_found
from service.app.games import GameService
from service.store.events import StoredEvent


class SpectatorSummary(msgspec.Struct, frozen=True):
    """The game as spectators may see it: the same fold as ``GET /games/{id}/spectate``."""

    kind: str
    status: str
    version: int
    seats: list[str | None]
    view: Any
    winners: list[int] | None = None
    ruled_outcome: RuledOutcome | None = None


def summary_of(shown: Table) -> SpectatorSummary:
    """The one spectator summary of a table spectators may see (``Spectators.at``'s)."""
    return SpectatorSummary(
        kind=shown.kind,
        status=shown.status,
        version=version_for(shown, SPECTATOR),
        seats=list(shown.seats),
        view=shown.decider.view(shown.state, SPECTATOR) if shown.status != "open" else None,
        winners=list(shown.outcome.winners) if shown.outcome else None,
        ruled_outcome=ruled_outcome(shown),
    )


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


class Shown:
    """One game as spectators last saw it: the table, and when its last event was recorded."""

    __slots__ = ("last_at", "table")

    def __init__(self, table: Table, last_at: float) -> None:
        self.table = table
        self.last_at = last_at


def _holds(table: Table, seat: int, occupancy: str | None) -> bool:
    return 0 <= seat < len(table.occupancies) and table.occupancies[seat] == occupancy


class Spectators:
    """Each game's state as spectators see it, kept and folded forward (bounded in games, least
    recently used first out; forgotten when a person in the game is erased)."""

    def __init__(self, games: GameService, size: int = 2000) -> None:
        self.games = games
        self.size = size
        self._shown: OrderedDict[int, Shown] = OrderedDict()

    async def at(self, game_id: uuid.UUID, instant: float, *, needs: int) -> Table:
        """The game as spectators may see it at ``instant`` (projections/spectator), from a log
        that reaches at least seq ``needs`` (the version the caller knows: never older)."""
        kept = self._shown.get(game_id.int)
        if kept is not None and kept.last_at > instant:
            # An earlier instant than the one kept (requests crossing): folded for it alone.
            rows = await self.games.reads.events(game_id, needs=needs)
            return shown_at(
                ((s.recorded_at.timestamp(), s.type, s.schema_version, s.data) for s in rows), instant
            )
        after = kept.table.version if kept is not None else 0
        rows = await self.games.reads.events(game_id, after_seq=after, needs=needs)
        released: list[StoredEvent] = []
        for s in rows:  # in seq order; the game's first event always (it shows from its creation)
            if s.recorded_at.timestamp() > instant and (released or kept is not None):
                break
            released.append(s)
        if not released:
            if kept is None:
                raise not_found(f"Game {game_id}")
            self._shown.move_to_end(game_id.int)
            return kept.table
        seq = released[-1].seq
        table = self.games.tables.latest(game_id)
        if table is None or table.version != seq:
            base = self.games.tables.base(game_id, seq)
            if base is None or (kept is not None and kept.table.version > base.version):
                base = kept.table if kept is not None else None
            since = base.version if base is not None else 0
            table = tables.fold_rows(
                base, ((s.type, s.schema_version, s.data) for s in released if s.seq > since)
            )
            assert table is not None, "a game's log starts with lobby.created"
        self._keep(game_id, Shown(table, released[-1].recorded_at.timestamp()))
        return table

    async def snapshot(self, game_id: uuid.UUID, table: Table, now: float) -> SpectatorSnapshot:
        """``GET /games/{id}/spectate``: the summary as of the delay before ``now`` (``table``:
        the game as its caller loaded it, public)."""
        as_of = released_by(now, table.spectator_delay)
        shown = await self.at(game_id, as_of, needs=table.version)
        return SpectatorSnapshot(
            game_id=game_id,
            as_of=as_of,
            spectator_delay=shown.spectator_delay,
            **msgspec.structs.asdict(summary_of(shown)),
        )

    def _keep(self, game_id: uuid.UUID, shown: Shown) -> None:
        self._shown[game_id.int] = shown
        self._shown.move_to_end(game_id.int)
        while len(self._shown) > self.size:
            self._shown.popitem(last=False)

    async def shown_to(self, game_id: uuid.UUID, principal: Principal | None) -> Table:
        """The game as ``principal`` may see its summary: live to its host, the holders of its
        seats and moderators; to anyone else only if public, and only as the delay allows."""
        games = self.games
        table = await games.load(game_id, cached_ok=True)
        if principal is not None and principal.game_id == game_id and principal.role in ("host", "seat"):
            seat = principal.seat
            if principal.role == "host" or (seat is not None and _holds(table, seat, principal.occupancy)):
                return table
        if principal is not None and principal.role == "moderator":
            return table
        if not table.public:
            raise ServiceError(403, "private_game", "This game is private: only its host and seats see it.")
        if table.spectator_delay <= 0:
            return table
        instant = released_by(games.clock(), table.spectator_delay)
        shown = await self.at(game_id, instant, needs=table.version)
        # Seat names are lobby information: they show at once (as in the listing).
        return msgspec.structs.replace(shown, seats=table.seats)

    def forget(self, game_id: uuid.UUID) -> None:
        """A person in the game was erased: what spectators were shown of it is read again."""
        self._shown.pop(game_id.int, None)

    def clear(self) -> None:
        self._shown.clear()
