"""The read models' rules, with no I/O: what one event changes in the lobby row and the statistics.

Given a game's table before and after one event (and when the event was recorded), ``changes``
says what the lobby row of that game becomes and which player statistics move. ``BatchChanges``
gathers the changes of many events into one row per game and one increment per (player, kind),
ready to be written in a single transaction by the projector (service/projector.py).

- A game counts as *played* for every seat's player (the player id its ``lobby.joined`` names)
  when it finishes, and as *won* for the player of each winning seat. A player sitting in several
  seats of one game counts once. Guests (no player id) get no statistics; display names are
  never identities (two players may share one).
- A player's games (``PlayerGamesChange``): one row per player holding a seat of the game, with
  its seats and, once finished, its outcome (``won`` if any of its seats won). A player who left
  an open game has no row; one who conceded a running game keeps it (the seat is still theirs).
  A game's rows are rewritten whole, and only when an event changes them.
- ``created_at`` is the game's own creation time; ``started_at`` and ``finished_at`` are the
  ``recorded_at`` of the event that made it run and of the one that ended it (the database
  clock, the one the spectator delay is measured against).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Literal

import msgspec

from projections.table import Status, Table


class LobbyChange(msgspec.Struct, frozen=True, kw_only=True):
    """A game's lobby row after an event; ``started_at``/``finished_at`` only by their event."""

    game_id: uuid.UUID
    kind: str
    status: Status
    public: bool
    spectator_delay: float
    seat_names: tuple[str | None, ...]
    seats_taken: int
    seats_total: int
    winners: tuple[int, ...] | None
    version: int
    created_at: datetime
    started_at: datetime | None = None
    finished_at: datetime | None = None

    def then(self, later: LobbyChange) -> LobbyChange:
        """This change followed by ``later`` (of the same game): later fields, earliest times."""
        return msgspec.structs.replace(
            later,
            started_at=self.started_at or later.started_at,
            finished_at=self.finished_at or later.finished_at,
        )


class StatChange(msgspec.Struct, frozen=True):
    player: str  # the player's id
    kind: str
    played: int
    won: int


PlayerOutcome = Literal["won", "lost"]


class PlayerGame(msgspec.Struct, frozen=True):
    player: str  # the player's id
    seats: tuple[int, ...]
    outcome: PlayerOutcome | None  # once the game is finished


class PlayerGamesChange(msgspec.Struct, frozen=True, kw_only=True):
    """Every player row of one game after an event (replacing the game's previous rows)."""

    game_id: uuid.UUID
    kind: str
    status: Status
    created_at: datetime
    rows: tuple[PlayerGame, ...]


class Changes(msgspec.Struct, frozen=True):
    lobby: LobbyChange
    stats: tuple[StatChange, ...] = ()
    player_games: PlayerGamesChange | None = None


def lobby_change(game_id: uuid.UUID, before: Table | None, after: Table, at: datetime) -> LobbyChange:
    started = after.status != "open" and (before is None or before.status == "open")
    finished = after.status == "finished" and (before is None or before.status != "finished")
    return LobbyChange(
        game_id=game_id,
        kind=after.kind,
        status=after.status,
        public=after.public,
        spectator_delay=after.spectator_delay,
        seat_names=after.seats,
        seats_taken=sum(1 for name in after.seats if name is not None),
        seats_total=len(after.seats),
        winners=tuple(after.outcome.winners) if after.outcome is not None else None,
        version=after.version,
        created_at=datetime.fromtimestamp(after.created_at, UTC),
        started_at=at if started else None,
        finished_at=at if finished else None,
    )


def stat_changes(before: Table | None, after: Table) -> tuple[StatChange, ...]:
    """One played game for each seat's player when the game has just finished; won for winners."""
    if after.status != "finished" or (before is not None and before.status == "finished"):
        return ()
    winners = set(after.outcome.winners) if after.outcome is not None else set()
    won: dict[str, bool] = {}
    for seat, player in enumerate(after.players):
        if player is not None:
            won[player] = won.get(player, False) or seat in winners
    return tuple(StatChange(player, after.kind, 1, int(w)) for player, w in won.items())


def player_games(table: Table) -> tuple[PlayerGame, ...]:
    """Each player holding a seat of the game, its seats, and its outcome once finished."""
    seats: dict[str, list[int]] = {}
    for seat, player in enumerate(table.players):
        if player is not None:
            seats.setdefault(player, []).append(seat)
    winners = set(table.outcome.winners) if table.outcome is not None else set()

    def outcome(held: list[int]) -> PlayerOutcome | None:
        if table.status != "finished":
            return None
        return "won" if winners.intersection(held) else "lost"

    return tuple(PlayerGame(player, tuple(held), outcome(held)) for player, held in seats.items())


def player_games_change(game_id: uuid.UUID, before: Table | None, after: Table) -> PlayerGamesChange | None:
    """The game's player rows, when this event changed them (``None`` when it did not)."""
    rows = player_games(after)
    if before is not None and before.status == after.status and player_games(before) == rows:
        return None
    return PlayerGamesChange(
        game_id=game_id,
        kind=after.kind,
        status=after.status,
        created_at=datetime.fromtimestamp(after.created_at, UTC),
        rows=rows,
    )


def changes(game_id: uuid.UUID, before: Table | None, after: Table, at: datetime) -> Changes:
    """What folding one event (``before`` -> ``after``, recorded ``at``) changes."""
    return Changes(
        lobby_change(game_id, before, after, at),
        stat_changes(before, after),
        player_games_change(game_id, before, after),
    )


class BatchChanges:
    """The changes of many events, merged: one lobby row per game, one increment per player,
    the latest player rows per game."""

    def __init__(self) -> None:
        self.lobby: dict[uuid.UUID, LobbyChange] = {}
        self.stats: dict[tuple[str, str], tuple[int, int]] = {}
        self.player_games: dict[uuid.UUID, PlayerGamesChange] = {}

    def add(self, change: Changes) -> None:
        row = change.lobby
        previous = self.lobby.get(row.game_id)
        self.lobby[row.game_id] = row if previous is None else previous.then(row)
        for stat in change.stats:
            played, won = self.stats.get((stat.player, stat.kind), (0, 0))
            self.stats[stat.player, stat.kind] = (played + stat.played, won + stat.won)
        if change.player_games is not None:
            self.player_games[row.game_id] = change.player_games

    def extend(self, items: Iterable[Changes]) -> None:
        for change in items:
            self.add(change)

    def __bool__(self) -> bool:
        return bool(self.lobby or self.stats or self.player_games)
