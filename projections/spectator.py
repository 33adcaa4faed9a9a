"""What spectators may see, decided once: an event is public to spectators only
``spectator_delay`` after it, and a game's public state is its log folded up to then.

The public reads that are not a fold of the log at a time (the listing, a player's statistics)
follow the same rule: their read models keep when each part of a result happened (the game's
end, each ruling that changed it, ``rulings``) and a read shows the latest part released
(``released_sql``). Only a game's seats, their players and moderators see it sooner.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import msgspec

from domain.decider import Outcome
from domain.disputes.decider import Result, after_ruling
from projections.table import Table, fold_rows


def released_by(now: float, delay: float) -> float:
    """Events recorded at or before this instant may be shown to spectators now."""
    return now - delay


def release_at(recorded_at: float, delay: float) -> float:
    return recorded_at + delay


def released_sql(at: str, delay: str) -> str:
    """``released_by`` in SQL: whether what happened at ``at`` (a timestamptz expression) may be
    shown now, ``delay`` (seconds, an expression) being the game's spectator delay."""
    return f"({at}) + make_interval(secs => {delay}) <= now()"


def ruling_released_sql(ruling: str, delay: str) -> str:
    """``released_sql`` for one of a read model's ``rulings`` (a JSON object with its ``at``)."""
    return released_sql(f"to_timestamp(({ruling} ->> 'at')::float8)", delay)


class Ruled(msgspec.Struct, frozen=True):
    """A finished game's result as a ruling left it, public from ``at + spectator_delay``."""

    at: float  # the ruling's time (epoch seconds)
    outcome: Outcome | None  # the ruled outcome (None: the original one stands)
    penalties: tuple[int, ...]  # per seat (empty: none)


def rulings(table: Table) -> tuple[Ruled, ...]:
    """The result after each ruling that changed it, in the order of their times (the last one
    is the table's own ``ruled_outcome`` and ``penalties``)."""
    result: Result = (None, ())
    out: list[Ruled] = []
    made = sorted((d.ruling for d in table.disputes if d.ruling is not None), key=lambda r: r.at)
    for ruling in made:
        after = after_ruling(table, result, ruling.verdict, ruling.action, ruling.seats)
        if after != result:
            result = after
            out.append(Ruled(ruling.at, *after))
    return tuple(out)


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
    shown = fold_rows(None, _released(rows, instant))
    assert shown is not None, "a game's log starts with lobby.created"
    return shown


def _released(rows: Iterable[tuple[float, str, int, str]], instant: float) -> Iterator[tuple[str, int, str]]:
    """The rows released by ``instant`` (the first always), as the one fold reads them."""
    for n, (recorded_at, event_type, version, data) in enumerate(rows):
        if recorded_at > instant and n > 0:
            return
        yield event_type, version, data
