"""Each viewer's numbering of a game's log: numbers that reveal nothing (RULES 3).

Some events exist for one seat only (an Exploding Kittens pass). If a viewer read log seqs, the
gap such an event leaves would tell it that the event happened. So every number a viewer reads
(versions, event seqs, stream ids, and the ``after`` / ``Last-Event-ID`` / ``expected_version``
it sends back) counts only the events that viewer may see: the n-th event it may see is its
number n, and its version is how many it may see. Moderators see everything, so their numbers are
the log's seqs. The numbering is a pure function of the log, so streams stay resumable on any
instance. Which events a viewer may not see at all comes from the game's ``private_to``; a game
without it hides no event's existence, and every viewer's numbers are the log's seqs.
"""

from __future__ import annotations

from typing import Any

from domain.decider import Decider
from domain.viewers import Moderator, Seat, Viewer
from projections.table import DisputeEvent, LobbyEvent, Table


def private_seat(decider: Decider | None, event: Any) -> int | None:
    """The one seat that may know ``event`` exists, or None if every viewer may (lobby events are
    public; every viewer knows a dispute event exists, domain/disputes/views.py)."""
    if decider is None or decider.hidden.private_to is None or isinstance(event, LobbyEvent | DisputeEvent):
        return None
    return decider.hidden.private_to(event)


def sees(private: int | None, viewer: Viewer) -> bool:
    """Whether ``viewer`` may know that an event private to ``private`` (None: nobody) exists."""
    if private is None or isinstance(viewer, Moderator):
        return True
    return isinstance(viewer, Seat) and viewer.index == private


def version_for(table: Table, viewer: Viewer) -> int:
    """How many of the table's events ``viewer`` may see: its version of the game."""
    if not table.private or isinstance(viewer, Moderator):
        return table.version
    own = 0
    if isinstance(viewer, Seat) and 0 <= viewer.index < len(table.private):
        own = table.private[viewer.index]
    return table.version - (sum(table.private) - own)


def same_for_everyone(table: Table) -> bool:
    """True while no event of the table is hidden from anyone: every numbering is the log's seqs."""
    return not any(table.private)


def seat_numbers(before: Table | None, after: Table) -> list[int | None]:
    """Each seat's number for the event that made ``before`` into ``after`` (None: that seat may
    not see it): what a moderator reads beside the log's seq, to match a seat's own words."""
    numbers: list[int | None] = []
    for index in range(len(after.seats)):
        seat = Seat(index)
        now = version_for(after, seat)
        numbers.append(now if before is None or now > version_for(before, seat) else None)
    return numbers
