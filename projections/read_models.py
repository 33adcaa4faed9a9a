"""The read models' rules, with no I/O: what one event changes in the lobby row and the statistics.

Given a game's table before and after one event (and when the event was recorded), ``changes``
says what the lobby row of that game becomes and which player statistics move. ``BatchChanges``
gathers the changes of many events into one row per game and one increment per (player, kind),
ready to be written in a single transaction by the projector (service/projector.py).

- A game counts as *played* for every seat's player (the player id its ``lobby.joined`` names)
  when it finishes, and as *won* for the player of each winning seat. A player sitting in several
  seats of one game counts once. Guests (no player id) get no statistics; display names are
  never identities (two players may share one).
- An upheld verdict that changes the outcome (domain/disputes) moves ``won`` to the ruled
  winners, and each ``penalize`` mark adds one to the seat's player's ``penalties``; the lobby row
  shows the ruled winners next to the original ones. Each dispute's row in the moderators' queue
  follows its events.
- ``created_at`` is the game's own creation time; ``started_at`` and ``finished_at`` are the
  ``recorded_at`` of the event that made it run and of the one that ended it (the database
  clock, the one the spectator delay is measured against).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import UTC, datetime

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
    ruled_winners: tuple[int, ...] | None = None
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
    won: int  # may be negative: a ruling took a win away
    penalties: int = 0


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


class Changes(msgspec.Struct, frozen=True):
    lobby: LobbyChange
    stats: tuple[StatChange, ...] = ()
    disputes: tuple[DisputeRow, ...] = ()


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
        ruled_winners=tuple(after.ruled_outcome.winners) if after.ruled_outcome is not None else None,
        version=after.version,
        created_at=datetime.fromtimestamp(after.created_at, UTC),
        started_at=at if started else None,
        finished_at=at if finished else None,
    )


def _won(table: Table) -> dict[str, bool]:
    """Per player of the table: whether one of its seats wins, as the outcome now counts."""
    outcome = table.final_outcome
    winners = set(outcome.winners) if outcome is not None else set()
    won: dict[str, bool] = {}
    for seat, player in enumerate(table.players):
        if player is not None:
            won[player] = won.get(player, False) or seat in winners
    return won


def _penalties(table: Table | None) -> dict[str, int]:
    marks: dict[str, int] = {}
    if table is not None:
        for seat, count in enumerate(table.penalties):
            player = table.players[seat]
            if player is not None and count:
                marks[player] = marks.get(player, 0) + count
    return marks


def stat_changes(before: Table | None, after: Table) -> tuple[StatChange, ...]:
    """One played game for each seat's player when the game has just finished; won for winners.
    Once finished, a ruling that changes the outcome moves the wins; a penalty adds a mark."""
    finished = after.status == "finished"
    just_finished = finished and (before is None or before.status != "finished")
    won_after = _won(after) if finished else {}
    won_before = _won(before) if finished and not just_finished and before is not None else {}
    marks_after, marks_before = _penalties(after), _penalties(before)
    out = []
    for player in dict.fromkeys([*after.players, *marks_after]):
        if player is None:
            continue
        played = int(just_finished)
        won = int(won_after.get(player, False)) - int(won_before.get(player, False))
        penalties = marks_after.get(player, 0) - marks_before.get(player, 0)
        if played or won or penalties:
            out.append(StatChange(player, after.kind, played, won, penalties))
    return tuple(out)


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


def changes(game_id: uuid.UUID, before: Table | None, after: Table, at: datetime) -> Changes:
    """What folding one event (``before`` -> ``after``, recorded ``at``) changes."""
    return Changes(
        lobby_change(game_id, before, after, at),
        stat_changes(before, after),
        dispute_changes(game_id, before, after),
    )


class BatchChanges:
    """The changes of many events, merged: one lobby row per game, one increment per player."""

    def __init__(self) -> None:
        self.lobby: dict[uuid.UUID, LobbyChange] = {}
        self.stats: dict[tuple[str, str], tuple[int, int, int]] = {}
        self.disputes: dict[uuid.UUID, DisputeRow] = {}

    def add(self, change: Changes) -> None:
        row = change.lobby
        previous = self.lobby.get(row.game_id)
        self.lobby[row.game_id] = row if previous is None else previous.then(row)
        for stat in change.stats:
            played, won, penalties = self.stats.get((stat.player, stat.kind), (0, 0, 0))
            self.stats[stat.player, stat.kind] = (
                played + stat.played,
                won + stat.won,
                penalties + stat.penalties,
            )
        for dispute in change.disputes:
            self.disputes[dispute.dispute_id] = dispute

    def extend(self, items: Iterable[Changes]) -> None:
        for change in items:
            self.add(change)

    def __bool__(self) -> bool:
        return bool(self.lobby or self.stats or self.disputes)
