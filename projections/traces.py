"""A seat's match trace: everything one seat was shown of a game, step by step, in its numbering.

Close to OpenSpiel's trajectories, for a seat rather than for the game: each step is an event the
seat saw (as it saw it, numbered as it numbers its events), the seat's observation right after it
(its view of the game: its hand, what it saw, the public table) and the moves it could make then;
a step whose event came from the seat's own command says so (``by_seat``), and that command was
decided on the step before. A third party who holds the game's export replays it and computes
the same trace (``trace`` over the export's events, ``events_of``), so it can check that a
seat's agent acted only on what the seat was shown; the seat's receipts prove the events.

The format, one JSON object a line:

- first, ``{"trace": "playlog/trace/v1", "game_id", "kind", "seat", "seats"}``;
- then one line a step: ``{"n", "event", "observation", "moves", "by_seat"}``, where ``n`` is the
  seat's number of the event (1, 2, ...), ``event`` is the event as the seat's event list shows it
  (``seq`` its number, ``type``, ``recorded_at``, ``data``), ``observation`` the seat's view after
  it (None before the game starts) and ``moves`` its moves then (its legal commands but leaving).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from domain.decider import Concede
from domain.viewers import Seat
from projections.envelopes import envelope
from projections.export.canonical import canonical
from projections.export.format import EventRecord
from projections.numbering import private_seat, sees
from projections.replay import RawEvent, Step, plain, replay

FORMAT = "playlog/trace/v1"


def trace(game_id: str, steps: Sequence[Step], seat: int) -> list[dict[str, Any]]:
    """The match trace of ``seat`` over a game's replayed ``steps`` (the whole log)."""
    viewer = Seat(seat)
    last = steps[-1].table if steps else None
    lines: list[dict[str, Any]] = [
        {
            "trace": FORMAT,
            "game_id": game_id,
            "kind": last.kind if last else None,
            "seat": seat,
            "seats": list(last.seats) if last else [],
        }
    ]
    number = 0
    for step in steps:
        table = step.table
        if not sees(private_seat(table.decider, step.event), viewer):
            continue
        number += 1
        shown = envelope(table.decider, number, step.recorded_at, step.event, viewer)
        if shown is None:
            continue
        started = table.status != "open"
        moves = (
            [c for c in table.decider.legal_commands(table.state, seat) if type(c) is not Concede]
            if table.status == "running"
            else []
        )
        lines.append(
            {
                "n": number,
                "event": plain(shown),
                "observation": plain(table.decider.view(table.state, viewer)) if started else None,
                "moves": plain(moves),
                "by_seat": step.actor == f"seat:{seat}",
            }
        )
    return lines


def events_of(events: Iterable[EventRecord]) -> list[RawEvent]:
    """An export's events (their seals opened) as replay reads them."""
    return [
        RawEvent(
            seq=event.seq,
            recorded_at=float(event.recorded_at),
            type=event.type,
            schema_version=event.schema_version,
            data=canonical(event.data),
            actor=(event.metadata or {}).get("actor"),
        )
        for event in events
    ]


def from_export_events(game_id: str, events: Iterable[EventRecord], seat: int) -> list[dict[str, Any]]:
    """The trace a third party computes from an export's events (opened, verified first)."""
    return trace(game_id, replay(events_of(events)), seat)


def first_difference(kept: Sequence[Any], computed: Sequence[Any]) -> str | None:
    """Where a kept trace departs from the one computed from the export, in words; None if none."""
    for line, (mine, theirs) in enumerate(zip(kept, computed, strict=False), start=1):
        if mine != theirs:
            field = next((k for k in sorted(set(mine) | set(theirs)) if mine.get(k) != theirs.get(k)), "?")
            where = f"step {mine.get('n')}" if "n" in mine else "the header"
            return f"line {line} ({where}): its {field} is not what the export shows the seat"
    if len(kept) != len(computed):
        return f"the trace has {len(kept)} lines, the export gives the seat {len(computed)}"
    return None
