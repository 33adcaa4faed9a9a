"""What spectators may see, decided once: an event is public to spectators only
``spectator_delay`` after it, and a game's public state is its log folded up to then."""

from __future__ import annotations

from collections.abc import Iterable

from projections.table import Table, step


def released_by(now: float, delay: float) -> float:
    """Events recorded at or before this instant may be shown to spectators now."""
    return now - delay


def release_at(recorded_at: float, delay: float) -> float:
    return recorded_at + delay


def open_to_anyone(table: Table, last_recorded_at: float, now: float) -> bool:
    """Whether anyone may audit the whole game: a public game, finished, whose last event the
    spectator delay has released."""
    over = table.status == "finished" and table.public
    return over and last_recorded_at <= released_by(now, table.spectator_delay)


def shown_at(rows: Iterable[tuple[float, str, int, str]], instant: float) -> Table:
    """What a spectator may see of a game at ``instant``: its log ``(recorded_at, type,
    schema_version, data)`` folded up to the last event released by then (the creation always,
    so that a game shows from the moment it exists). The one place that decides it: the
    snapshot, ``GET /games/{id}`` and the listing's rule (the same instants, in SQL) agree."""
    shown: Table | None = None
    for recorded_at, event_type, version, data in rows:
        if recorded_at > instant and shown is not None:
            break
        shown, _ = step(shown, event_type, data, version)
    assert shown is not None, "a game's log starts with lobby.created"
    return shown


def spectator_table(table: Table, rows: Iterable[tuple[float, str, int, str]], now: float) -> Table:
    """``table`` (the live one) as spectators may see it ``now``: itself without a delay."""
    if table.spectator_delay <= 0:
        return table
    return shown_at(rows, released_by(now, table.spectator_delay))
