"""The read models' rules, with no I/O: what one event changes in the lobby row and a player's games.

Given a game's table before and after one event (and when the event was recorded), ``changes``
says what the lobby row of that game becomes and which player rows change. ``BatchChanges``
gathers the changes of many events into one lobby row and one set of player rows per game,
ready to be written in a single transaction by the projector (service/readmodels/projector.py).

- A player's games (``PlayerGamesChange``): one row per player (the player id its
  ``lobby.joined`` names) holding a seat of the game, with its seats and, once finished, its
  outcome (``won`` if any of its seats won). A player who left an open game has no row; one who
  conceded a running game keeps it (the seat is still theirs). Guests (no player id) have no
  rows; display names are never identities. A game's rows are rewritten whole, and only when an
  event changes them. A player's statistics are counted from these rows (service/app/players.py).
- Each row and the lobby row keep what the public may learn and when (projections/spectator.py):
  the outcome as the game ended, from ``finished_at``; after each upheld verdict that changed it
  (domain/disputes: the ruled winners, a ``penalize`` mark per seat), from the ruling's time
  (``rulings``). ``outcome`` is the result now, for the player's own list. Each dispute's row in
  the moderators' queue follows its events.
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

from domain.decider import Outcome
from projections.spectator import rulings
from projections.table import Status, Table


class ListedRuling(msgspec.Struct, frozen=True):
    """The listing's part of a ruling: the winners after it (None: the original ones stand)."""

    at: float  # the ruling's time (epoch seconds)
    winners: tuple[int, ...] | None


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
    rulings: tuple[ListedRuling, ...] = ()
    started_at: datetime | None = None
    finished_at: datetime | None = None

    def then(self, later: LobbyChange) -> LobbyChange:
        """This change followed by ``later`` (of the same game): later fields, earliest times."""
        return msgspec.structs.replace(
            later,
            started_at=self.started_at or later.started_at,
            finished_at=self.finished_at or later.finished_at,
        )


class DisputeRow(msgspec.Struct, frozen=True, kw_only=True):
    """A dispute's row in the moderators' queue."""

    dispute_id: uuid.UUID
    game_id: uuid.UUID
    kind: str
    seat: int | None
    category: str
    status: str
    claimed_by: str | None
    verdict: str | None
    action: str | None
    review_of: uuid.UUID | None
    raised_at: datetime
    raised_seq: int
    resolved_at: datetime | None


PlayerOutcome = Literal["won", "lost"]


class PlayerRuling(msgspec.Struct, frozen=True):
    """A player's result in a game after a ruling changed the game's."""

    at: float  # the ruling's time (epoch seconds)
    outcome: PlayerOutcome
    penalties: int  # the marks on the player's seats so far


class PlayerGame(msgspec.Struct, frozen=True):
    player: str  # the player's id
    seats: tuple[int, ...]
    outcome: PlayerOutcome | None  # once the game is finished, as ruled
    ended: PlayerOutcome | None = None  # as the game ended
    rulings: tuple[PlayerRuling, ...] = ()


class PlayerGamesChange(msgspec.Struct, frozen=True, kw_only=True):
    """Every player row of one game after an event (replacing the game's previous rows)."""

    game_id: uuid.UUID
    kind: str
    status: Status
    spectator_delay: float
    created_at: datetime
    rows: tuple[PlayerGame, ...]
    finished_at: datetime | None = None  # only by the event that ended the game

    def then(self, later: PlayerGamesChange) -> PlayerGamesChange:
        """This change followed by ``later`` (of the same game): later rows, the earliest end."""
        return msgspec.structs.replace(later, finished_at=self.finished_at or later.finished_at)


class Changes(msgspec.Struct, frozen=True):
    lobby: LobbyChange
    player_games: PlayerGamesChange | None = None
    disputes: tuple[DisputeRow, ...] = ()


def _just_finished(before: Table | None, after: Table) -> bool:
    return after.status == "finished" and (before is None or before.status != "finished")


def lobby_change(game_id: uuid.UUID, before: Table | None, after: Table, at: datetime) -> LobbyChange:
    # A lobby closed unstarted (domain/table/clock.py) is finished, never started.
    started = after.status != "open" and not after.closed and (before is None or before.status == "open")
    finished = _just_finished(before, after)
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
        rulings=tuple(
            ListedRuling(r.at, r.outcome.winners if r.outcome is not None else None) for r in rulings(after)
        ),
        version=after.version,
        created_at=datetime.fromtimestamp(after.created_at, UTC),
        started_at=at if started else None,
        finished_at=at if finished else None,
    )


def dispute_changes(game_id: uuid.UUID, before: Table | None, after: Table) -> tuple[DisputeRow, ...]:
    """The queue rows of the disputes the event changed."""
    earlier = set(before.disputes) if before is not None else set()
    return tuple(
        DisputeRow(
            dispute_id=uuid.UUID(d.dispute_id),
            game_id=game_id,
            kind=after.kind,
            seat=d.seat,
            category=d.category,
            status=d.status,
            claimed_by=d.claimed_by,
            verdict=d.ruling.verdict if d.ruling else None,
            action=d.ruling.action if d.ruling else None,
            review_of=uuid.UUID(d.review_of) if d.review_of else None,
            raised_at=datetime.fromtimestamp(d.raised_at, UTC),
            raised_seq=d.raised_seq,
            resolved_at=datetime.fromtimestamp(d.ruling.at, UTC) if d.ruling else None,
        )
        for d in after.disputes
        if d not in earlier
    )


def _outcome(held: list[int], outcome: Outcome | None) -> PlayerOutcome:
    return "won" if outcome is not None and set(outcome.winners).intersection(held) else "lost"


def player_games(table: Table) -> tuple[PlayerGame, ...]:
    """Each player holding a seat of the game, its seats, and its outcome once finished (as the
    game ended, after each ruling that changed it, and now)."""
    seats: dict[str, list[int]] = {}
    for seat, player in enumerate(table.players):
        if player is not None:
            seats.setdefault(player, []).append(seat)
    if table.status != "finished" or table.closed:  # a lobby closed unstarted: nobody won or lost
        return tuple(PlayerGame(player, tuple(held), None) for player, held in seats.items())
    ruled = rulings(table)
    return tuple(
        PlayerGame(
            player,
            tuple(held),
            _outcome(held, table.final_outcome),
            _outcome(held, table.outcome),
            tuple(
                PlayerRuling(
                    r.at,
                    _outcome(held, r.outcome if r.outcome is not None else table.outcome),
                    sum(r.penalties[seat] for seat in held) if r.penalties else 0,
                )
                for r in ruled
            ),
        )
        for player, held in seats.items()
    )


def player_games_change(
    game_id: uuid.UUID, before: Table | None, after: Table, at: datetime
) -> PlayerGamesChange | None:
    """The game's player rows, when this event changed them (``None`` when it did not)."""
    rows = player_games(after)
    if before is not None and before.status == after.status and player_games(before) == rows:
        return None
    return PlayerGamesChange(
        game_id=game_id,
        kind=after.kind,
        status=after.status,
        spectator_delay=after.spectator_delay,
        created_at=datetime.fromtimestamp(after.created_at, UTC),
        rows=rows,
        finished_at=at if _just_finished(before, after) else None,
    )


def changes(game_id: uuid.UUID, before: Table | None, after: Table, at: datetime) -> Changes:
    """What folding one event (``before`` -> ``after``, recorded ``at``) changes."""
    return Changes(
        lobby_change(game_id, before, after, at),
        player_games_change(game_id, before, after, at),
        dispute_changes(game_id, before, after),
    )


class BatchChanges:
    """The changes of many events, merged: one lobby row and the latest player rows per game."""

    def __init__(self) -> None:
        self.lobby: dict[uuid.UUID, LobbyChange] = {}
        self.disputes: dict[uuid.UUID, DisputeRow] = {}
        self.player_games: dict[uuid.UUID, PlayerGamesChange] = {}

    def add(self, change: Changes) -> None:
        row = change.lobby
        previous = self.lobby.get(row.game_id)
        self.lobby[row.game_id] = row if previous is None else previous.then(row)
        for dispute in change.disputes:
            self.disputes[dispute.dispute_id] = dispute
        if (games := change.player_games) is not None:
            earlier = self.player_games.get(row.game_id)
            self.player_games[row.game_id] = games if earlier is None else earlier.then(games)

    def extend(self, items: Iterable[Changes]) -> None:
        for change in items:
            self.add(change)

    def __bool__(self) -> bool:
        return bool(self.lobby or self.player_games or self.disputes)
