"""What a seat sees of a game (``GET /games/{id}/seats/{seat}/view``, a command's ``?view=true``):
the game's view for that seat, its own moves and the table's facts, numbered as that seat numbers
them (RULES 3). Pure, from the table alone: the HTTP room, the command's answer, the computer
players (who decide from exactly this) and the "your turn" webhooks all read it here, so each
sees the same thing (service/ sits above projections/; its read room, service/views/, sits above
its app room, which needs the view too)."""

from __future__ import annotations

import uuid
from typing import Any

import msgspec

from domain.decider import Concede
from domain.table.clock import ClockSettings, settings_of
from domain.viewers import Seat
from projections.disputes import RuledOutcome, ruled_outcome
from projections.numbering import version_for
from projections.table import Table


class SeatViewOut(msgspec.Struct, frozen=True):
    game_id: uuid.UUID
    kind: str
    status: str
    version: int  # how many events this seat may see (projections/numbering)
    seat: int
    seats: list[str | None]
    view: Any  # the game's view for this seat (None before the game starts)
    # The seat's own moves now: its legal commands but leaving (conceding), which is always legal
    # and never a move; empty while the game waits for another seat.
    moves: list[Any]
    winners: list[int] | None = None
    ruled_outcome: RuledOutcome | None = None  # once an upheld verdict changed the outcome
    # The table's clock (domain/table/clock.py); absent when it has none, so the views of games
    # without one keep their shape (the golden corpus holds them).
    clock: ClockSettings | msgspec.UnsetType = msgspec.UNSET


def _moves(table: Table, seat: int, view: Any = None) -> list[Any]:
    """``seat``'s legal commands but conceding; taken from its ``view`` when it lists them (each
    game's seat view does), so they are built once."""
    if table.status != "running":
        return []
    legal = getattr(view, "legal_commands", None)
    if legal is None:
        legal = table.decider.legal_commands(table.state, seat)
    return [c for c in legal if type(c) is not Concede]


def may_act(table: Table, seat: int) -> bool:
    """Whether ``seat``'s view lists moves (what a "your turn" webhook tells, service/app/webhooks.py)."""
    return bool(_moves(table, seat))


def seat_view(game_id: uuid.UUID, table: Table, seat: int) -> SeatViewOut:
    """What ``seat`` sees of ``table``, with its legal commands and, apart, its own moves."""
    view = table.decider.view(table.state, Seat(seat)) if table.status != "open" else None
    return SeatViewOut(
        game_id=game_id,
        kind=table.kind,
        status=table.status,
        version=version_for(table, Seat(seat)),
        seat=seat,
        seats=list(table.seats),
        view=view,
        winners=list(table.outcome.winners) if table.outcome else None,
        ruled_outcome=ruled_outcome(table),
        moves=_moves(table, seat, view),
        clock=clock if (clock := settings_of(table)) is not None else msgspec.UNSET,
    )
